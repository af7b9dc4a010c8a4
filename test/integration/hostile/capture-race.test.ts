/**
 * Hostile: partial captures that race or lose their answer. The gateway takes one capture per
 * authorisation and its own word of it (notification, query) repeats the authorised amount, so the
 * kit's record of what was captured rests on the amount it wrote before sending. Attacked here:
 * - ten partial captures of different amounts sent at once on one order (five from code, five
 *   from the admin) while the gateway's capture notification comes in;
 * - a capture whose answer is lost (a timeout), then a second capture tried before anyone synced,
 *   then the notification (or a query sync) settling it;
 * - a capture lost before the gateway got it: a query sync must free the order to be captured again,
 *   and a batch capture job meanwhile must not send a capture whose notification would be read
 *   as the lost one's amount.
 * - a capture whose answer and notification are both lost, left to the sweeper alone;
 * - a partial capture from code racing the staff's void (cancel) of the same authorisation;
 * - a refund of the whole captured part while the authorisation's and capture's notifications
 *   are replayed, shuffled, many times over.
 * Invariant: the shop's captured amount is the sandbox's `capturedAmount`, `onPaid` runs once, and
 * what the admin offers as refundable never exceeds what the gateway captured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { held, paidIn, postNotify } from './support.js';

let shop: Shop;
/** Order numbers whose next capture request is lost on the way to the gateway (never sent). */
const lostOnTheWay = new Set<string>();
/** Order numbers whose capture answers reach the kit only after the order's notification did. */
const answerAfterNotification = new Set<string>();
/** Capture request bodies the kit sent toward the gateway. */
const captureBodies: string[] = [];
beforeAll(async () => {
  // The gateway's client gives up after 1 s: a timeout fault loses the answer quickly.
  shop = await startShop({ admin: true, captureMode: 'manual', notifyTimeScale: 0.00001, timeoutMs: 1000,
    kit: {
      fetch: async (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        const body = typeof init?.body === 'string' ? init.body : '';
        if (url.endsWith('/v1/capture')) captureBodies.push(body);
        const orderNo = [...lostOnTheWay].find((n) => body.includes(n));
        if (url.endsWith('/v1/capture') && orderNo !== undefined) {
          lostOnTheWay.delete(orderNo);
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        }
        const res = await fetch(input, init);
        const slow = [...answerAfterNotification].find((n) => body.includes(n));
        if (url.endsWith('/v1/capture') && slow !== undefined) {
          const text = await res.text();
          const deadline = Date.now() + 5_000;
          while (Date.now() < deadline && !held(shop, slow).some((f) => f.payment_status === '2000' || f.order_status === '3')) await sleep(5);
          for (const f of held(shop, slow)) await postNotify(shop, f);
          return new Response(text, { status: res.status, headers: res.headers });
        }
        return res;
      },
    },
  });
});
afterAll(async () => {
  await shop.close();
});

const uniq = (): string => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function expectMatchesLedger(orderId: string, orderNo: string): Promise<void> {
  const order = (await shop.kit.store.get(orderId))!;
  const tx = shop.sandbox.ledger.transaction(orderNo)!;
  expect(order.state).toBe('paid');
  expect(order.capturedAmount).toBe(tx.capturedAmount);
  expect(shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === orderNo)).toHaveLength(1);
}

describe('partial captures raced or with a lost answer', () => {
  it('ten captures of different amounts at once (code and admin): the shop records what the gateway captured', async () => {
    const order = await paidIn(shop, `CRACE-${uniq()}`, 10_000);
    expect(order.state).toBe('authorized');
    const staff = new Staff(shop, 'crace');
    await staff.get(`/orders/${order.id}`);
    const amounts = [1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 9_500];
    // Notifications are posted as soon as the sandbox records them, racing the answers.
    let racing = true;
    const posted = new Set<string>();
    const poster = (async () => {
      while (racing) {
        for (const f of held(shop, order.orderNo)) {
          const key = JSON.stringify(f);
          if (posted.has(key)) continue;
          posted.add(key);
          await postNotify(shop, f);
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    const results = await Promise.allSettled(amounts.map((amount, i) => i % 2 === 0
      ? shop.kit.orders.capture(order.id, { amount, actor: `code-${String(i)}` })
      : staff.post(`/orders/${order.id}/capture`, { capture_amount: (amount / 100).toFixed(2) })));
    racing = false;
    await poster;
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, order.orderNo)) expect(await postNotify(shop, f)).toBe(200);
    await shop.kit.engine.confirm(order.id, 'admin', 'staff');
    // One capture per authorisation: the kit sends one, the others are refused before sending.
    expect(captureBodies.filter((b) => b.includes(order.orderNo))).toHaveLength(1);
    await expectMatchesLedger(order.id, order.orderNo);
  });

  for (const settle of ['notification', 'query sync'] as const) {
    it(`a capture whose answer is lost, then another capture tried, settled by ${settle}: the first capture's amount is recorded`, async () => {
      const order = await paidIn(shop, `CLOST-${settle === 'notification' ? 'N' : 'Q'}-${uniq()}`, 10_000);
      shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
      shop.sandbox.faults.add({ kind: 'timeout', operation: 'capture', orderNo: order.orderNo, times: 1 });
      const first = await shop.kit.orders.capture(order.id, { amount: 3_000, actor: 'warehouse' });
      expect(first.status).toBe('unknown');
      expect(shop.sandbox.ledger.transaction(order.orderNo)!.capturedAmount).toBe(3_000);

      // Someone tries again before any sync: it must not change what the kit will record.
      const again = await shop.kit.orders.capture(order.id, { amount: 5_000, actor: 'impatient' }).then((r) => r.status, (err: unknown) => err);
      expect(again).not.toBe('captured');
      const staff = new Staff(shop, `clost-${settle}`);
      await staff.get(`/orders/${order.id}`);
      await staff.post(`/orders/${order.id}/capture`, { capture_amount: '30.00' });

      if (settle === 'notification') {
        shop.sandbox.faults.clear();
        await shop.sandbox.notifier.flush();
        for (const f of held(shop, order.orderNo)) expect(await postNotify(shop, f)).toBe(200);
      } else {
        await staff.post(`/orders/${order.id}/sync`, {});
      }
      await expectMatchesLedger(order.id, order.orderNo);
      // What the admin offers to refund is what was captured, never the whole authorisation.
      const page = await staff.get(`/orders/${order.id}`);
      expect(page.text).not.toMatch(/100\.00[^<]*refundable|refundable[^<]*100\.00/i);
    });
  }

  it('a capture lost before the gateway got it: refused again until a query sync, then captured once', async () => {
    const order = await paidIn(shop, `CNOTSENT-${uniq()}`, 10_000);
    lostOnTheWay.add(order.orderNo);
    const first = await shop.kit.orders.capture(order.id, { amount: 4_000 });
    expect(first.status).toBe('unknown');
    expect(shop.sandbox.ledger.transaction(order.orderNo)!.capturedAmount).toBe(0);
    await expect(shop.kit.orders.capture(order.id, { amount: 4_000 })).rejects.toMatchObject({ code: 'ERR_ORDER_STATE' });
    const staff = new Staff(shop, 'cnotsent');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/sync`, {})).status).toBe(303);
    const again = await shop.kit.orders.capture(order.id, { amount: 2_500 });
    expect(again.status).toBe('captured');
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, order.orderNo)) expect(await postNotify(shop, f)).toBe(200);
    await expectMatchesLedger(order.id, order.orderNo);
    expect(shop.sandbox.ledger.transaction(order.orderNo)!.capturedAmount).toBe(2_500);
  });

  it('a batch capture job on an order whose capture answer was lost: not sent until a query sync, then the whole amount recorded', async () => {
    const order = await paidIn(shop, `CJOB-${uniq()}`, 10_000);
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    lostOnTheWay.add(order.orderNo);
    expect((await shop.kit.orders.capture(order.id, { amount: 4_000 })).status).toBe('unknown');
    // The job's capture answer comes back only after its notification reached the shop.
    answerAfterNotification.add(order.orderNo);
    const staff = new Staff(shop, 'cjob');
    await staff.get('/batch');
    const runJob = async (): Promise<void> => {
      const res = await staff.post('/batch', { action: 'capture', orders: order.orderNo });
      expect(res.status).toBe(303);
      const jobId = /\/batch\/([0-9a-f-]{36})/.exec(res.location)?.[1] ?? '';
      for (let i = 0; i < 500 && (await shop.kit.adminStore.getJob(jobId))?.status !== 'done'; i++) await sleep(10);
    };
    await runJob();
    const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
    const now = (await shop.kit.store.get(order.id))!;
    if (now.state === 'paid') expect(now.capturedAmount).toBe(tx.capturedAmount);
    else expect(tx.capturedAmount).toBe(0);

    await staff.get(`/orders/${order.id}`);
    await staff.post(`/orders/${order.id}/sync`, {});
    if ((await shop.kit.store.get(order.id))!.state === 'authorized') {
      await staff.get('/batch');
      await runJob();
    }
    await expectMatchesLedger(order.id, order.orderNo);
    expect(shop.sandbox.ledger.transaction(order.orderNo)!.capturedAmount).toBe(10_000);
  });

  for (const [currency, amount, part, typed] of [['JPY', 10_000, 3_001, '3001'], ['KWD', 10_000, 3_001, '3.001'], ['EUR', 10_000, 3_001, '30.01']] as const) {
    it(`a partial capture in ${currency} from code and from the admin form: the gateway captures the same minor units`, async () => {
      const fromCode = await paidIn(shop, `CCUR-C-${currency}-${uniq()}`, amount, currency);
      expect((await shop.kit.orders.capture(fromCode.id, { amount: part })).status).toBe('captured');
      const fromAdmin = await paidIn(shop, `CCUR-A-${currency}-${uniq()}`, amount, currency);
      const staff = new Staff(shop, `ccur-${currency}`);
      await staff.get(`/orders/${fromAdmin.id}`);
      expect((await staff.post(`/orders/${fromAdmin.id}/capture`, { capture_amount: typed })).status).toBe(303);
      await shop.sandbox.notifier.flush();
      for (const order of [fromCode, fromAdmin]) {
        for (const f of held(shop, order.orderNo)) await postNotify(shop, f);
        await expectMatchesLedger(order.id, order.orderNo);
        expect(shop.sandbox.ledger.transaction(order.orderNo)!.capturedAmount).toBe(part);
      }
    });
  }

  it('refunding the captured 30.00 while the authorisation and capture notifications are replayed shuffled: refunded as at the gateway', async () => {
    const order = await paidIn(shop, `CREPLAY-${uniq()}`, 10_000);
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    expect((await shop.kit.orders.capture(order.id, { amount: 3_000 })).status).toBe('captured');
    await shop.sandbox.notifier.flush();
    const before = held(shop, order.orderNo);
    const staff = new Staff(shop, 'creplay');
    await staff.get(`/orders/${order.id}`);
    const replays = [...before, ...before, ...before, ...before].sort(() => Math.random() - 0.5);
    const [refund] = await Promise.all([
      staff.post(`/orders/${order.id}/refund`, { refund_amount: '30.00' }),
      ...replays.map((f) => postNotify(shop, f)),
    ]);
    expect(refund.status).toBe(303);
    await shop.sandbox.notifier.flush();
    const all = held(shop, order.orderNo);
    await Promise.all([...all, ...all].sort(() => Math.random() - 0.5).map((f) => postNotify(shop, f)));
    const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
    const now = (await shop.kit.store.get(order.id))!;
    expect(tx.refundedAmount).toBe(3_000);
    expect(now.capturedAmount).toBe(tx.capturedAmount);
    expect(now.refundedAmount).toBe(tx.refundedAmount);
    expect(now.state).toBe('refunded');
    expect(now.attention).toBeNull();
    expect(shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === order.orderNo)).toHaveLength(1);
    expect(new Set(shop.hookCalls.filter((c) => c.hook === 'onRefunded' && c.orderNo === order.orderNo).map((c) => c.eventId)).size).toBe(1);
    // Nothing more may be refunded.
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '0.01' })).status).not.toBe(303);
  });

  it('captures whose answer and notification are both lost, left to the sweeper: recorded as captured, or freed to capture again', async () => {
    const taken = await paidIn(shop, `CSWEEP-T-${uniq()}`, 10_000);
    const notSent = await paidIn(shop, `CSWEEP-N-${uniq()}`, 10_000);
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: taken.orderNo });
    shop.sandbox.faults.add({ kind: 'timeout', operation: 'capture', orderNo: taken.orderNo, times: 1 });
    lostOnTheWay.add(notSent.orderNo);
    const [a, b] = await Promise.all([
      shop.kit.orders.capture(taken.id, { amount: 7_000 }),
      shop.kit.orders.capture(notSent.id, { amount: 7_000 }),
    ]);
    expect([a.status, b.status]).toEqual(['unknown', 'unknown']);
    // The claims must be older than the sweeper's stuckAfterMs (1 ms here) to be its business.
    await sleep(20);
    const report = await shop.kit.sweeper.runOnce();
    // The lost-on-the-way claim is the sweeper's alone to settle (the other may already have been
    // settled by the authorisation's own notification, confirmed by a query that says captured).
    expect(report.captures?.settled).toBeGreaterThanOrEqual(1);
    await expectMatchesLedger(taken.id, taken.orderNo);
    expect(shop.sandbox.ledger.transaction(taken.orderNo)!.capturedAmount).toBe(7_000);
    expect((await shop.kit.store.get(notSent.id))!.state).toBe('authorized');
    expect((await shop.kit.orders.capture(notSent.id, { amount: 7_000 })).status).toBe('captured');
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, notSent.orderNo)) await postNotify(shop, f);
    await expectMatchesLedger(notSent.id, notSent.orderNo);
  });

  it('a partial capture from code racing the staff\'s void: the shop ends as the gateway did', async () => {
    for (let round = 0; round < 4; round++) {
      const order = await paidIn(shop, `CVOID-${String(round)}-${uniq()}`, 10_000);
      const staff = new Staff(shop, `cvoid-${String(round)}`);
      await staff.get(`/orders/${order.id}`);
      const capture = shop.kit.orders.capture(order.id, { amount: 4_000 }).catch((err: unknown) => err);
      const voided = staff.post(`/orders/${order.id}/cancel`, {});
      await Promise.all([capture, voided]);
      await shop.sandbox.notifier.flush();
      for (const f of held(shop, order.orderNo)) await postNotify(shop, f);
      await shop.kit.engine.confirm(order.id, 'admin', 'staff');
      const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
      const now = (await shop.kit.store.get(order.id))!;
      if (tx.capturedAmount > 0) {
        await expectMatchesLedger(order.id, order.orderNo);
      } else {
        expect(now.state).toBe('cancelled');
        expect(now.capturedAmount).toBe(0);
        expect(shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === order.orderNo)).toHaveLength(0);
      }
    }
  });
});
