/**
 * Hostile: a database written by the version before the refund ledger (schema 001 only), opened
 * by this one. An order refunded before the upgrade carries its total as one `import` row; the
 * gateway's refund search still lists the refunds behind that total. Whatever reads that list
 * afterwards — query sync, the sweeper's refund round — must not count them a second time.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveRefund } from '../../../server/admin/gateway-actions.js';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { takeNotification } from '../../../server/checkout/notification-facts.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { Order } from '../../../server/orders/types.js';
import { ACCOUNT_ID, MERCHANT_ID, startShop, type Shop } from '../../reliability/support/shop.js';
import { held, paidIn, refundBehindTheKit } from './support.js';

/** The orders schema as the version before the ledger shipped it. */
const V1 = execFileSync('git', ['show', '89535b5:server/orders/stores/sql/sqlite/001_orders.sql'], { encoding: 'utf8' });

let shop: Shop;
const dir = mkdtempSync(join(tmpdir(), 'hostile-migrated-'));
beforeAll(async () => {
  shop = await startShop({ notifyTimeScale: 0.00001 });
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** An order paid and refunded `refunded` at the gateway, as the old version's database recorded it. */
async function upgraded(refunded: number, confirmNotifications = true): Promise<{ kit: CheckoutKit; order: Order; close: () => Promise<void> }> {
  const paid = await paidIn(shop, `MIG-${Date.now().toString(36)}-${String(++n)}`, 1_000);
  expect((await refundBehindTheKit(shop, paid, refunded)).ok).toBe(true);
  const path = join(dir, `v1-${String(n)}.sqlite`);
  const db = new Database(path);
  db.exec(V1);
  db.exec('CREATE TABLE checkout_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
  db.prepare('INSERT INTO checkout_schema_migrations VALUES (1, ?, ?)').run('orders', Date.now());
  db.prepare(`INSERT INTO checkout_orders (id, order_no, amount, currency, state, version, transaction_id, captured_amount, refunded_amount, created_at, updated_at)
    VALUES (?, ?, 1000, 'USD', 'partially_refunded', 3, ?, 1000, ?, 1, 2)`).run(paid.id, paid.orderNo, paid.transactionId, refunded);
  db.close();
  const kit = createCheckoutKit({
    store: createSqliteStore({ path }),
    gateway: { baseUrl: shop.gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: shop.signKey },
    publicUrl: 'http://127.0.0.1:1/checkout',
    tokenSecret: 'hostile-token-secret-0123456789abcdef0123',
    sweeper: { enabled: false },
    confirmNotifications,
  });
  const order = (await kit.store.get(paid.id))!;
  return { kit, order, close: () => kit.close() };
}

async function problems(kit: CheckoutKit, order: Order): Promise<string[]> {
  const now = (await kit.store.get(order.id))!;
  const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
  const out: string[] = [];
  if (now.refundedAmount !== tx.refundedAmount) out.push(`shop refunded ${String(now.refundedAmount)}, gateway ${String(tx.refundedAmount)}`);
  if (now.state !== (tx.refundedAmount >= tx.capturedAmount ? 'refunded' : 'partially_refunded')) out.push(`shop ${now.state}`);
  return out;
}

describe('refunds on an order refunded before the ledger existed', () => {
  it('query sync after the upgrade counts the old refund once; a refund made behind the kit since is for staff', async () => {
    const { kit, order, close } = await upgraded(500);
    try {
      await kit.engine.confirm(order.id, 'admin', 'staff');
      expect(await problems(kit, order)).toEqual([]);
      expect((await kit.store.get(order.id))!.attention).toBeNull();
      // Which listed refunds the carried-over total covers is not knowable: documented as flagged.
      await refundBehindTheKit(shop, order, 200);
      await kit.engine.confirm(order.id, 'admin', 'staff');
      expect((await kit.store.get(order.id))!).toMatchObject({ refundedAmount: 500, attention: expect.stringContaining('gateway lists 700') });
    } finally {
      await close();
    }
  });

  it('the sweeper\'s refund round for a staff refund whose answer was lost counts the old refund once', async () => {
    const { kit, order, close } = await upgraded(500);
    try {
      // Staff refund 200 after the upgrade; the gateway makes it, its answer never comes back.
      const reserved = await reserveRefund(kit.engine, order, 200, 'staff');
      expect('id' in reserved).toBe(true);
      expect((await refundBehindTheKit(shop, order, 200)).ok).toBe(true);
      await new Promise((r) => setTimeout(r, 5));
      const sweeper = createSweeper({
        engine: kit.engine, store: kit.store, gateway: createGatewayPort(kit.client),
        stuckAfterMs: 60_000, expireAfterMs: 120_000, refundSettleAfterMs: 1, refundFailAfterMs: 3_600_000,
      });
      await sweeper.runOnce();
      expect(await problems(kit, order)).toEqual([]);
      expect((await kit.store.listRefunds(order.id)).filter((r) => r.status === 'pending')).toEqual([]);
    } finally {
      await close();
    }
  });

  it('query sync settles a staff refund whose answer was lost, on an upgraded order', async () => {
    const { kit, order, close } = await upgraded(300);
    try {
      expect('id' in (await reserveRefund(kit.engine, order, 250, 'staff'))).toBe(true);
      expect((await refundBehindTheKit(shop, order, 250)).ok).toBe(true);
      await kit.engine.confirm(order.id, 'admin', 'staff');
      expect(await problems(kit, order)).toEqual([]);
      expect((await kit.store.get(order.id))!.attention).toBeNull();
      expect((await kit.store.listRefunds(order.id)).map((r) => [r.source, r.status, r.amount]).sort()).toEqual([['admin', 'succeeded', 250], ['import', 'succeeded', 300]]);
    } finally {
      await close();
    }
  });

  it('the old refund\'s notification, delivered again after the upgrade, is not counted a second time', async () => {
    const { kit, order, close } = await upgraded(500);
    try {
      // The gateway's own notification of the refund the import row counts (or a shopper's signed body posted as it).
      const note = held(shop, order.orderNo).find((f) => f.refund_reference_id !== undefined);
      expect(note).toBeDefined();
      await takeNotification(kit.context, kit.client.notifications.verify(note!));
      expect(await problems(kit, order)).toEqual([]);
      expect((await kit.store.get(order.id))!.attention).toBeNull();
      expect((await kit.store.listRefunds(order.id)).map((r) => [r.source, r.amount])).toEqual([['import', 500]]);
    } finally {
      await close();
    }
  });

  it('a lost staff refund of the same amount as the refund before the upgrade is not paired with it', async () => {
    const { kit, order, close } = await upgraded(400);
    try {
      // Staff refund 400 after the upgrade; its answer is lost and the gateway never made it.
      expect('id' in (await reserveRefund(kit.engine, order, 400, 'staff'))).toBe(true);
      await kit.engine.confirm(order.id, 'admin', 'staff');
      await new Promise((r) => setTimeout(r, 5));
      const sweeper = createSweeper({
        engine: kit.engine, store: kit.store, gateway: createGatewayPort(kit.client),
        stuckAfterMs: 60_000, expireAfterMs: 120_000, refundSettleAfterMs: 1, refundFailAfterMs: 1,
      });
      await sweeper.runOnce();
      expect(await problems(kit, order)).toEqual([]);
      expect((await kit.store.listRefunds(order.id)).map((r) => [r.source, r.status, r.amount]).sort()).toEqual([['admin', 'failed', 400], ['import', 'succeeded', 400]]);
    } finally {
      await close();
    }
  });

  async function staffRefundNotifiedFirst(confirmNotifications: boolean): Promise<{ order: Order; rows: [string, string, number][]; status: string }> {
    const { kit, order } = await upgraded(500, confirmNotifications);
    try {
      expect('id' in (await reserveRefund(kit.engine, order, 200, 'staff'))).toBe(true);
      const made = await refundBehindTheKit(shop, order, 200);
      expect(made.ok).toBe(true);
      const note = held(shop, order.orderNo).find((f) => f.refund_reference_id === made.referenceId);
      expect(note).toBeDefined();
      const taken = await takeNotification(kit.context, kit.client.notifications.verify(note!));
      const rowsOf = async (): Promise<[string, string, number][]> =>
        (await kit.store.listRefunds(order.id)).map((r): [string, string, number] => [r.source, r.status, r.amount]).sort();
      if (!confirmNotifications) {
        // Unconfirmed, the report could be the old refund's as well as the staff refund's: it settles nothing.
        expect(await rowsOf()).toEqual([['admin', 'pending', 200], ['import', 'succeeded', 500]]);
        await new Promise((r) => setTimeout(r, 5));
        const sweeper = createSweeper({
          engine: kit.engine, store: kit.store, gateway: createGatewayPort(kit.client),
          stuckAfterMs: 60_000, expireAfterMs: 120_000, refundSettleAfterMs: 1, refundFailAfterMs: 3_600_000,
        });
        await sweeper.runOnce();
      }
      return { order: (await kit.store.get(order.id))!, rows: await rowsOf(), status: taken.status };
    } finally {
      await kit.close();
    }
  }

  it('confirmNotifications: true — the notification settles the pending staff row, no attention', async () => {
    const { order, rows, status } = await staffRefundNotifiedFirst(true);
    expect(status).toBe('taken');
    expect(rows).toEqual([['admin', 'succeeded', 200], ['import', 'succeeded', 500]]);
    expect(order).toMatchObject({ refundedAmount: 700, attention: null });
  });

  it('confirmNotifications: false — the staff refund\'s own notification leaves its row pending, no attention; the sweeper\'s refund round settles it', async () => {
    const { order, rows, status } = await staffRefundNotifiedFirst(false);
    expect(status).toBe('taken');
    expect(rows).toEqual([['admin', 'succeeded', 200], ['import', 'succeeded', 500]]);
    expect(order).toMatchObject({ refundedAmount: 700, attention: null });
  });

  for (const confirm of [false, true]) {
    it(`confirmNotifications ${String(confirm)}: staff refund of the same amount reserved (not made), the OLD refund's notification redelivered: not counted twice`, async () => {
      const { kit, order } = await upgraded(300, confirm);
      try {
        expect('id' in (await reserveRefund(kit.engine, order, 300, 'staff'))).toBe(true);
        const note = held(shop, order.orderNo).find((f) => f.refund_reference_id !== undefined);
        expect(note).toBeDefined();
        await takeNotification(kit.context, kit.client.notifications.verify(note!));
        expect(await problems(kit, order)).toEqual([]);
      } finally {
        await kit.close();
      }
    });

    it(`confirmNotifications ${String(confirm)}: a staff refund of the same amount reserved, the old refund's notification redelivered, then the gateway refuses the staff refund: the ledger goes back to the gateway's total`, async () => {
      const { kit, order } = await upgraded(300, confirm);
      try {
        const reserved = await reserveRefund(kit.engine, order, 300, 'staff');
        const id = (reserved as { id: string }).id;
        const note = held(shop, order.orderNo).find((f) => f.refund_reference_id !== undefined)!;
        await takeNotification(kit.context, kit.client.notifications.verify(note));
        await kit.engine.apply({ orderId: order.id, source: 'admin', actor: 'staff', outcome: 'unknown', refunds: [{ id, amount: 300, status: 'failed' }] });
        expect(await problems(kit, order)).toEqual([]);
      } finally {
        await kit.close();
      }
    });

    it(`confirmNotifications ${String(confirm)}: staff refund of the same amount made (answer on its way), the OLD refund's notification redelivered first, then the staff answer: gateway total`, async () => {
      const { kit, order } = await upgraded(300, confirm);
      try {
        const reserved = await reserveRefund(kit.engine, order, 300, 'staff');
        expect('id' in reserved).toBe(true);
        const id = (reserved as { id: string }).id;
        const made = await refundBehindTheKit(shop, order, 300);
        expect(made.ok).toBe(true);
        const old = held(shop, order.orderNo).find((f) => f.refund_reference_id !== undefined && f.refund_reference_id !== made.referenceId);
        expect(old).toBeDefined();
        await takeNotification(kit.context, kit.client.notifications.verify(old!));
        // The staff answer arrives (applyOutcome's refund report).
        await kit.engine.apply({ orderId: order.id, source: 'admin', actor: 'staff', outcome: 'unknown', refunds: [{ id, referenceId: made.referenceId, amount: 300, status: 'succeeded' }] });
        // And the gateway's own notification of the staff refund.
        const mine = held(shop, order.orderNo).find((f) => f.refund_reference_id === made.referenceId);
        await takeNotification(kit.context, kit.client.notifications.verify(mine!));
        expect(await problems(kit, order)).toEqual([]);
      } finally {
        await kit.close();
      }
    });

    it(`confirmNotifications ${String(confirm)}: parallel: old refund redelivered twice and the staff refund's notification at once`, async () => {
      const { kit, order } = await upgraded(300, confirm);
      try {
        const reserved = await reserveRefund(kit.engine, order, 300, 'staff');
        const id = (reserved as { id: string }).id;
        const made = await refundBehindTheKit(shop, order, 300);
        const old = held(shop, order.orderNo).find((f) => f.refund_reference_id !== undefined && f.refund_reference_id !== made.referenceId)!;
        const mine = held(shop, order.orderNo).find((f) => f.refund_reference_id === made.referenceId)!;
        const v = (f: Record<string, string>) => kit.client.notifications.verify(f);
        await Promise.all([
          takeNotification(kit.context, v(old)), takeNotification(kit.context, v(mine)), takeNotification(kit.context, v(old)),
          kit.engine.apply({ orderId: order.id, source: 'admin', actor: 'staff', outcome: 'unknown', refunds: [{ id, referenceId: made.referenceId, amount: 300, status: 'succeeded' }] }),
        ]);
        expect(await problems(kit, order)).toEqual([]);
      } finally {
        await kit.close();
      }
    });
  }
});
