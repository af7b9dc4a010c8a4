/**
 * Two shop instances on one PostgreSQL database settle the same orders at the same time (see
 * scenario.ts). Every order must end as the gateway's ledger says, with one transition per fact
 * and one hook call per transition across both instances, no lease left behind, and every
 * authorise sent once, whoever wins the race: the sweepers or the notifications and returns.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { notificationDedupeKey } from '../../../server/checkout/notify.js';
import { SUBMITTED_KEY } from '../../../server/checkout/pay/submit.js';
import { outcomeOfPaymentStatus } from '../../../server/gateway/codes.js';
import { hookForState } from '../../../server/orders/hooks.js';
import { OUTCOME_STATE } from '../../../server/orders/state-machine.js';
import { loadMigrations } from '../../../server/orders/stores/sql/migrations.js';
import { ORDER_STATES } from '../../../server/orders/types.js';
import { paymentInput } from '../checkout/journeys-harness.js';
import { startInstances, transitionsOf, uniqueOrderNo, type Instances } from './instances.js';
import { createScenario, deliveriesOf, eventsOf, OPENED, type Journey, type StormMode } from './scenario.js';
import { announceSkip, postgresProblem } from './servers.js';

const pgProblem = await postgresProblem();
announceSkip('multi-instance tests (two checkout kits on one PostgreSQL database)', [pgProblem]);

const MODES: readonly StormMode[] = ['sweepers first', 'notifications first'];

describe.skipIf(pgProblem !== null)('two checkout kits on one PostgreSQL database', () => {
  let h: Instances;

  beforeAll(async () => {
    h = await startInstances('multi');
  });
  afterAll(async () => {
    await h.close();
  });

  async function checkJourney(journey: Journey): Promise<void> {
    const { orderNo } = journey;
    const label = `${journey.group} ${orderNo}`;
    // The gateway received one authorise and holds one transaction for the order.
    expect(h.gatewayRequests('authorise', orderNo), label).toBe(1);
    const ledger = h.sandbox.ledger.transactions().filter((t) => t.orderNo === orderNo);
    expect(ledger, label).toHaveLength(1);
    const outcome = outcomeOfPaymentStatus(ledger[0]!.paymentStatus);
    if (outcome === 'unknown') throw new Error(`${label}: unknown payment_status ${ledger[0]!.paymentStatus}`);

    const order = await h.a.store.getByOrderNo(orderNo);
    expect(order?.state, label).toBe(OUTCOME_STATE[outcome]);
    expect(order?.state, label).toBe(journey.path.at(-1)?.[1]);
    expect(order?.attention, label).toBeNull();

    // One transition per fact, each from the state the previous one reached.
    const events = await eventsOf(h, orderNo);
    const transitions = transitionsOf(events);
    expect(transitions.map((e) => [e.fromState, e.toState]), label).toEqual(journey.path);
    expect(events.filter((e) => e.dedupeKey === SUBMITTED_KEY), label).toMatchObject([{ type: 'transition', source: 'pay', fromState: 'created', toState: 'pending' }]);
    expect(events.filter((e) => ['hook_failed', 'mismatch', 'rejected'].includes(e.type)), label).toEqual([]);
    const first = deliveriesOf(h, orderNo)[0];
    if (first !== undefined) {
      expect(events.filter((e) => e.dedupeKey === notificationDedupeKey(first.fields)).length, label).toBeLessThanOrEqual(1);
    }

    // One hook call per transition, counted over both instances.
    const expected = transitions.flatMap(({ toState: to }) => {
      const named = to === null ? undefined : hookForState(to);
      return [`onTransition:${String(to)}`, ...(named === undefined ? [] : [`${named}:${String(to)}`])];
    });
    // Delivered by the outbox: a busy machine may take longer than the engine's wait for it.
    const calls = (): string[] => h.hookCalls.filter((c) => c.orderNo === orderNo).map((c) => `${c.hook}:${String(c.to)}`).sort();
    await vi.waitFor(() => {
      expect(calls(), label).toEqual(expected.sort());
    }, { timeout: 15_000, interval: 50 });

    // Every copy sent to A was acknowledged in the end (a 503 while the order was busy is retried).
    for (const delivery of deliveriesOf(h, orderNo).filter((d) => d.status !== 'dropped')) {
      expect(delivery.status, `${label} ${delivery.origin}`).toBe('delivered');
    }
  }

  async function checkNoLeases(journeys: readonly Journey[]): Promise<void> {
    // No unexpired lease once the run is over, and listDue (which skips leased orders) sees every order.
    const leased = await h.a.pool.query(
      `SELECT order_no, lease_owner, lease_until FROM "${h.schema}".checkout_orders WHERE lease_owner IS NOT NULL AND lease_until > now()`,
    );
    expect(leased.rows).toEqual([]);
    // Stricter: every holder released what it took, none was left to expire.
    const left = await h.a.pool.query(`SELECT order_no, lease_owner FROM "${h.schema}".checkout_orders WHERE lease_owner IS NOT NULL`);
    expect(left.rows).toEqual([]);
    const total = await h.a.pool.query(`SELECT count(*)::int AS n FROM "${h.schema}".checkout_orders`);
    const due = await h.b.store.listDue({ states: ORDER_STATES, updatedBefore: new Date(Date.now() + 86_400_000), limit: 10_000 });
    expect(due).toHaveLength((total.rows[0] as { n: number }).n);
    for (const journey of journeys) expect(due.some((o) => o.orderNo === journey.orderNo)).toBe(true);
  }

  for (const mode of MODES) {
    it(`settles every order exactly once across both instances (${mode})`, { timeout: 120_000 }, async () => {
      const s = createScenario(h, mode === 'sweepers first' ? 'MI-S' : 'MI-N');
      await s.pay();
      await h.sandbox.notifier.flush();
      for (const journey of s.journeys) expect((await h.a.store.getByOrderNo(journey.orderNo))?.state, journey.orderNo).toBe(OPENED[journey.group]);
      const open = s.journeys.filter((j) => OPENED[j.group] !== 'paid').length;

      await s.storm(mode);
      await h.sandbox.notifier.flush();
      await s.sweepBoth();

      expect(s.replayStatuses.every((status) => status === 200 || status === 503)).toBe(true);
      for (const [x, y] of s.sweepPairs) {
        expect(x.errors + y.errors).toBe(0);
        // Sweepers started together never both claim an order (SKIP LOCKED).
        expect(x.claimed + y.claimed).toBeLessThanOrEqual(open);
      }
      for (const journey of s.journeys) await checkJourney(journey);

      // Nothing but the sweepers could settle these: their notifications were dropped and no shopper came back.
      for (const journey of s.journeys.filter((j) => j.group === 'timeout-swept')) {
        expect(transitionsOf(await eventsOf(h, journey.orderNo)).at(-1)?.source).toBe('sweeper');
      }
      // The returns went to B and ended on B's result page, which now shows the final state.
      for (const journey of s.journeys.filter((j) => j.returnForm !== undefined)) {
        const page = journey.pages.at(-1)!;
        expect(page.status).toBe(200);
        expect(page.url.startsWith(`${h.b.url}/checkout/result/`)).toBe(true);
        const again = await journey.shopper.get(page.url);
        expect(again.html).toMatch(journey.group === 'challenge-pass' ? /Payment received/ : /Payment declined/);
      }
      // The double submission: both clicks answered with a result page, one payment (checked above).
      for (const journey of s.journeys.filter((j) => j.group === 'double-submit')) {
        expect(journey.pages.map((p) => [p.status, new URL(p.url).pathname.startsWith('/checkout/result/')])).toEqual([[200, true], [200, true]]);
      }
      await checkNoLeases(s.journeys);
    });
  }

  it('creates one order when both instances are asked for the same order number at once', async () => {
    const orderNo = uniqueOrderNo('MI-CREATE');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? h.a : h.b).kit.createPayment(paymentInput(orderNo))));
    expect(new Set(results.map((r) => r.order.id)).size).toBe(1);
    const rows = await h.a.pool.query(`SELECT id FROM "${h.schema}".checkout_orders WHERE order_no = $1`, [orderNo]);
    expect(rows.rows).toEqual([{ id: results[0]!.order.id }]);
  });

  it('migrated the shared schema once although both instances started at the same moment', async () => {
    const rows = await h.a.pool.query(`SELECT version FROM "${h.schema}".checkout_schema_migrations ORDER BY version`);
    expect(rows.rows).toEqual(loadMigrations('postgres').map((m) => ({ version: m.version })));
  });
});
