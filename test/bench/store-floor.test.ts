/**
 * The store-part routes (bench/store-floor.ts) stand for what notify, render and pay_direct ask of
 * the store: each must leave the order and its log as the kit's own route does (same state and
 * columns, the same transitions with the same dedupe keys and event fields), or its figure would
 * measure some other work. Each pair gets the same seeded requests in two fresh shops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureOptions } from '../../bench/fixture.js';
import { keepAliveSender } from '../../bench/keep-alive-sender.js';
import type { LoadRequest, StoreFloor } from '../../bench/protocol.js';
import { notificationRequest, seedGatewayTransactions, seededRequests, seedPayRequests, seedPendingOrders } from '../../bench/seed.js';
import { AUTHORISE_REPLY } from '../../bench/upstream-wire.js';

const dirs: string[] = [];
let upstream: Server;
let upstreamUrl = '';

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/xml' }).end(AUTHORISE_REPLY));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${String((upstream.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const COUNT = 3;

async function seeded(route: StoreFloor): Promise<{ dir: string; requests: LoadRequest[] }> {
  const dir = mkdtempSync(join(tmpdir(), `floor-${route}-`));
  dirs.push(dir);
  const requests = await seededRequests(dir, async (target, out) => {
    if (route === 'notify') {
      await seedPendingOrders(target, 'N', COUNT);
      seedGatewayTransactions(target, 'N', COUNT, 'captured', (tx) => {
        out.add(notificationRequest(tx));
      });
    } else {
      await seedPayRequests(target, 'P', COUNT, route === 'pay_direct' ? 'card' : 'hosted', out);
    }
  });
  return { dir, requests };
}

interface Outcome {
  orders: Record<string, unknown>[];
  events: Record<string, unknown>[];
}

/** Sends the seeded requests to one shop and reads back what its store holds. */
async function outcome(route: StoreFloor, floor: boolean): Promise<Outcome> {
  const { dir, requests } = await seeded(route);
  const options: FixtureOptions = { dir, gatewayUrl: null, confirmNotifications: false, ...(floor ? { storeFloor: route } : {}) };
  if (floor && route === 'pay_direct') options.gatewayUrl = upstreamUrl;
  const fixture = await startFixture(options);
  fixture.inProcess?.sandbox.faults.add({ kind: 'dropNotification' });
  const sender = keepAliveSender(fixture.shopUrl, 2, route === 'pay_direct' ? 303 : 200);
  try {
    await sender.run(requests);
    expect(sender.wrong()).toBe(0);
    const store = fixture.kit.context.store;
    const listed = await store.list({ limit: 10 });
    const orders: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    for (const order of listed.sort((a, b) => a.orderNo.localeCompare(b.orderNo))) {
      orders.push({ state: order.state, method: order.method, paid: order.capturedAmount === order.amount, card: order.maskedCard !== null, transaction: order.transactionId !== null });
      for (const e of await store.listEvents(order.id)) {
        events.push({ type: e.type, source: e.source, actor: e.actor, from: e.fromState, to: e.toState, dedupeKey: e.dedupeKey === null ? null : e.dedupeKey.replace(/[0-9a-f]{64}$/, '<sha256>'), fields: Object.keys(e.data).sort() });
      }
    }
    return { orders, events };
  } finally {
    sender.close();
    await fixture.close();
  }
}

describe('the bench\'s store-part routes do the store work of the routes they stand for', () => {
  it.each(['notify', 'render', 'pay_direct'] as const)('%s', async (route) => {
    const kit = await outcome(route, false);
    const floor = await outcome(route, true);
    expect(kit.orders).toHaveLength(COUNT);
    expect(kit.orders.every((o) => o.state === (route === 'render' ? 'pending' : 'paid'))).toBe(true);
    expect(floor.orders).toEqual(kit.orders);
    // The same log, event for event: the kit's route writes nothing the store part leaves out.
    expect(floor.events.filter((e) => e.type === 'transition')).toHaveLength(route === 'pay_direct' ? 2 * COUNT : COUNT);
    expect(floor.events).toEqual(kit.events);
  }, 60_000);
});
