/**
 * The shopper's reason for a refused payment (`refusalReason`, the result page and the demo
 * store's order page) against what can follow a decline: the shop's hooks failing twenty times
 * each (a `hook_failed` event per attempt), a flood of forged notifications naming the order
 * number, and a forged notification that carries a reason of its own. The reason shown is the
 * gateway's, whatever the length of the log after it; a forgery is never shown and is recorded
 * at most once per reason and hour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalReason } from '../../../server/index.js';
import type { EventPage, OrderStore } from '../../../server/orders/store.js';
import { failedChallenge, startHarness, uniqueOrderNo, type Harness } from '../checkout/journeys-harness.js';
import { declinedPayment } from './signed-return.js';

/** The store as a shop's own store written before event pages: `page` ignored, the whole log every time. */
const pageBlind = (store: OrderStore): OrderStore =>
  Object.assign(Object.create(store) as OrderStore, { listEvents: (id: string, _page?: EventPage) => store.listEvents(id) });

async function forge(h: Harness, fields: Record<string, string>): Promise<number> {
  const res = await fetch(`${h.shopUrl}/checkout/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, sign: 'forged' }).toString(),
  });
  return res.status;
}

describe('refusal reason: the shop hooks fail after a 3-D Secure decline', () => {
  let h: Harness;
  beforeAll(async () => {
    const down = (): never => {
      throw new Error('shop backend unavailable');
    };
    // Default maxAttempts (20); only the backoff is shortened so the test does not wait hours.
    h = await startHarness({ hooks: { onTransition: down, onFailed: down }, outbox: { intervalMs: 10, backoffMs: 1, maxBackoffMs: 1 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('names the failure on the result page once 60+ hook failures follow it, on a paging store and on a page-blind one', async () => {
    const orderNo = uniqueOrderNo('R-HOOKS-DOWN');
    const { browser, result } = await failedChallenge(h, orderNo);
    expect(result.html).toMatch(/3-D Secure authentication failed/);

    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await h.kit.store.countOutbox()).pending > 0) await new Promise((r) => setTimeout(r, 50));
    expect((await h.kit.store.countOutbox()).pending).toBe(0);
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('declined');
    const all = await h.kit.store.listEvents(order.id);
    const declinedAt = all.findIndex((e) => e.toState === 'declined' && e.type === 'transition');
    expect(all.slice(declinedAt + 1).filter((e) => e.type === 'hook_failed').length).toBeGreaterThan(50);

    expect(await refusalReason(h.kit.store, order)).toMatch(/3-D Secure authentication failed/);
    expect(await refusalReason(pageBlind(h.kit.store), order)).toMatch(/3-D Secure authentication failed/);
    const again = await browser.get(result.url);
    expect(again.html).toMatch(/3-D Secure authentication failed/);
    expect(again.html).not.toMatch(/authentication required/);
  });
});

describe('refusal reason: forged notifications', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('55 forged notifications naming the order leave the reason in place and one rejected event per hour', async () => {
    const orderNo = uniqueOrderNo('R-FORGED');
    const { browser, result } = await declinedPayment(h, orderNo);
    expect(result.html).toMatch(/Reason:[\s\S]*Do not honor/);
    const order = await h.orderOf(orderNo);
    const eventsBefore = (await h.kit.store.listEvents(order.id)).length;

    for (let i = 0; i < 55; i++) expect(await forge(h, { order_no: orderNo, status: `x${String(i)}` })).toBe(401);
    const events = await h.kit.store.listEvents(order.id);
    // Every forgery answered 401; the log grew by one rejected event per hour, not 55 (two if
    // the posts straddled the turn of an hour).
    const rejected = events.filter((e) => e.type === 'notification_rejected').length;
    expect(rejected).toBeGreaterThanOrEqual(1);
    expect(rejected).toBeLessThanOrEqual(2);
    expect(events.length).toBe(eventsBefore + rejected);
    expect((await h.orderOf(orderNo)).version).toBe(order.version);
    const again = await browser.get(result.url);
    expect(again.html).toMatch(/Reason:[\s\S]*Do not honor/);
  });

  it("never shows a forged notification's own reason to the shopper", async () => {
    const orderNo = uniqueOrderNo('R-FORGED-TEXT');
    const { browser, result } = await declinedPayment(h, orderNo);
    expect(await forge(h, { order_no: orderNo, result_info: '9999:Your card is blocked, call +1 555 0100' })).toBe(401);
    const order = await h.orderOf(orderNo);
    expect((await h.kit.store.listEvents(order.id)).some((e) => e.type === 'notification_rejected')).toBe(true);
    expect(await refusalReason(h.kit.store, order)).toBe('Do not honor');
    const again = await browser.get(result.url);
    expect(again.html).toMatch(/Do not honor/);
    expect(again.html).not.toMatch(/call \+1 555 0100/);
  });
});
