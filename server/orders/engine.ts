/**
 * The reconcile engine: the one way every entry point (pay response, return, cancel, notify,
 * sweeper, admin) changes an order. Per fact: re-read, check amount and currency, drop
 * duplicates, optionally confirm with the gateway, plan the fact (refund ledger, state
 * machine, details, attention), compare-and-set it with its event and the hook calls it owes
 * (outbox entries, stored in the same atomic step), then have the outbox dispatcher deliver them
 * before answering. The compare-and-set alone picks one winner; the
 * order's store lease is taken only around an await on the gateway (see `needsLease`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../logging.js';
import { merged } from '../objects.js';
import { withTraceContext } from '../tracing.js';
import { reportChange } from './order-observer.js';
import { CONFIRMABLE_OUTCOMES, answerIsBehind, factEvent, factFromAnswer, mismatchOf, vouchedRefunds, withGatewayAnswer, withoutClaimedSubscription, withoutMismatchReasons } from './engine-facts.js';
import type { EventContext } from './engine-facts.js';
import type { ApplyOptions, ApplyResult, GatewayOrderFact, PaymentFact, ReconcileEngine, ReconcileEngineOptions } from './engine-types.js';
import { cardFree, parseFact } from './fact-schema.js';
import { owedHooks } from './hooks.js';
import type { StoredChange } from './hooks.js';
import { createOutboxDispatcher } from './outbox-dispatcher.js';
import type { TransitionExtras } from './store.js';
import { BUSY, createOrderLocks } from './order-lock.js';
import { impliedCapture, planFact } from './engine-plan.js';
import type { Plan } from './engine-plan.js';
import { isRefundFact, ledgerStep } from './engine-refunds.js';
import { createRecentAnswers } from './recent-answers.js';
import { mergeAttention, REQUESTED_CAPTURE, requestedCaptureOf } from './state-machine.js';
import type { Order, OrderEvent, OrderPatch } from './types.js';

/** Compare-and-set retries when another writer changes the order meanwhile. */
const MAX_CAS_ATTEMPTS = 5;

/** Outcomes that may imply a capture first: the lease keeps `onPaid` ahead of `onRefunded` across processes. */
const AFTER_CAPTURE_OUTCOMES: ReadonlySet<PaymentFact['outcome']> = new Set(['refunded', 'partially_refunded', 'chargeback']);

/**
 * The store lease guards an order across an await on the gateway (a confirming query) and for
 * callers that already hold it (the sweeper). Everything else is read → plan → compare-and-set,
 * retried on conflict: one commit instead of three.
 */
const needsLease = (fact: PaymentFact, leaseOwner: string | undefined): boolean =>
  leaseOwner !== undefined || (fact.confirm === true && CONFIRMABLE_OUTCOMES.has(fact.outcome)) || AFTER_CAPTURE_OUTCOMES.has(fact.outcome);

/** The gateway's own answer: a notification confirmed by query, or a fact built from a query. */
const isConfirmed = (fact: PaymentFact, confirmed: EventContext['confirmed']): boolean =>
  confirmed !== undefined || fact.data?.confirmedBy === 'query';

/**
 * A transition the gateway confirmed settles the order with the order's own amount and currency
 * (a mismatching one never gets here): a mismatch flagged earlier is stale, so its reason goes.
 */
function clearStaleMismatch(order: Order, patch: OrderPatch): OrderPatch {
  const current = patch.attention === undefined ? order.attention : patch.attention;
  const cleared = withoutMismatchReasons(current);
  return cleared === current ? patch : { ...patch, attention: cleared };
}

/** Records of facts that changed nothing, and how many in a row an order's log keeps. */
const QUIET_TYPES: ReadonlySet<string> = new Set(['ignored', 'rejected', 'unconfirmed', 'mismatch', 'notification_rejected', 'notification_unrecognised']);
const QUIET_RUN = 10;

interface Settled {
  result: ApplyResult;
  /** A capture stored first because the fact implied it (its hooks are owed before `change`'s). */
  before?: StoredChange;
  change?: StoredChange;
}

export function createReconcileEngine(options: ReconcileEngineOptions): ReconcileEngine {
  const { store, gateway } = options;
  const hooks = options.hooks ?? {};
  const logger = options.logger ?? silentLogger;
  const owner = options.owner ?? `engine-${randomUUID()}`;
  const now = options.now ?? ((): Date => new Date());
  const locks = createOrderLocks({ store, leaseMs: options.leaseMs ?? 30_000, waitMs: options.leaseWaitMs ?? 2_000, logger });
  let calls = 0;
  const answers = createRecentAnswers();
  const monotonicMs = options.monotonicMs ?? ((): number => performance.now());
  const outbox = createOutboxDispatcher({ ...options.outbox, store, hooks, logger, owner: `${owner}-outbox`, observer: options.observer });
  /** The hook calls a change owes, for the compare-and-set that stores it. */
  const owing = (change: StoredChange, order: Order): TransitionExtras | undefined => {
    const entries = owedHooks(hooks, order.parentId === undefined ? change : merged(change, { deduction: true }));
    // Each entry carries the trace of the change, so the hook's delivery joins it.
    return entries.length > 0 ? { outbox: withTraceContext(entries) } : undefined;
  };
  /** Adds a ledger step's refund rows to what the compare-and-set writes. */
  const withRefunds = (extras: TransitionExtras | undefined, step: { upserts: TransitionExtras['refunds'] } | null): TransitionExtras | undefined =>
    step === null ? extras : merged(extras, { refunds: step.upserts });

  const event = (ctx: EventContext) => factEvent(ctx, logger);
  /**
   * The newest event when the newest QUIET_RUN are all records that changed nothing (ignored,
   * refused, not confirmed yet, a mismatch already flagged, an unrecognised or forged
   * notification): then no more are written until the order changes. A notification's key hashes
   * fields its signature does not cover, so a body posted again with other unsigned fields has a
   * new key: without this bound each would add an event. A repeat of a recorded fact is still a
   * duplicate (its key is checked first); one not recorded is planned again if it returns.
   */
  const quietRun = async (orderId: string): Promise<OrderEvent | null> => {
    const newest = await store.listEvents(orderId, { limit: QUIET_RUN });
    return newest.length >= QUIET_RUN && newest.every((e) => QUIET_TYPES.has(e.type)) ? (newest[newest.length - 1] ?? null) : null;
  };
  const quietLogFull = async (orderId: string): Promise<boolean> => (await quietRun(orderId)) !== null;
  const unconfirmedKey = (claim: PaymentFact): string | null => (claim.dedupeKey === undefined ? null : `unconfirmed:${claim.dedupeKey}`);
  const duplicate = (order: Order): Settled => ({ result: { status: 'duplicate', order, reason: 'this fact was already recorded' } });
  // Keyed read: an index answers it however long the log. The filter keeps a store that
  // ignores `dedupeKey` (written before it) correct, only slower.
  const seen = async (orderId: string, key: string): Promise<boolean> =>
    (await store.listEvents(orderId, { dedupeKey: key })).some((e) => e.dedupeKey === key);

  async function resolve(fact: PaymentFact): Promise<Order | null> {
    if (fact.orderId !== undefined) {
      const order = await store.get(fact.orderId);
      if (order) return order;
    }
    if (fact.orderNo !== undefined) {
      const order = await store.getByOrderNo(fact.orderNo);
      if (order) return order;
    }
    return fact.transactionId != null ? store.getByTransactionId(fact.transactionId) : null;
  }

  async function queryGateway(orderNo: string): Promise<GatewayOrderFact | null> {
    if (!gateway) {
      throw new ConfigError('gateway', 'confirming a payment needs the gateway query', 'pass `gateway` (a GatewayPort) to createReconcileEngine');
    }
    return (await gateway.queryOrders([orderNo])).get(orderNo) ?? null;
  }

  /**
   * The gateway's answer for a claim to confirm. While the order's quiet run is full, its
   * notifications change nothing (a signed body posted again with other unsigned fields): they
   * reuse the answer asked for this version of the order within the last RECENT_ANSWER_MS, so a
   * flood costs a query per window, not per post. The quiet run is read only when there is such
   * an answer; posts for one order already wait their turn (`locks.run`), so they share it.
   */
  async function confirmingAnswer(order: Order): Promise<{ answer: GatewayOrderFact | null; reused: boolean }> {
    const at = monotonicMs();
    const recent = answers.recent(order, at);
    if (recent !== undefined && (await quietLogFull(order.id))) return { answer: recent.answer, reused: true };
    const answer = await queryGateway(order.orderNo);
    answers.keep(order, answer, at);
    return { answer, reused: false };
  }

  /** Records the mismatch and flags the order in one atomic step. Never applies the fact. */
  async function flagMismatch(first: Order, fact: PaymentFact, reason: string, confirmed: EventContext['confirmed']): Promise<Settled> {
    let order = first;
    // Without a key, one record per distinct mismatch: a poller repeating it adds nothing.
    const dedupeKey = fact.dedupeKey ?? `mismatch:${createHash('sha256').update(reason).digest('hex').slice(0, 32)}`;
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const mismatch = event({ type: 'mismatch', fact, order, reason, confirmed, dedupeKey });
      const attention = mergeAttention(order.attention, reason);
      if (attention === order.attention) {
        if (await quietLogFull(order.id)) return { result: { status: 'mismatch', order, reason } };
        const appended = await store.appendEvent(order.id, mismatch);
        return { result: { status: 'mismatch', order, event: appended.appended ? appended.event : undefined, reason } };
      }
      const patch: OrderPatch = { attention, data: { attentionAt: now().toISOString() } };
      const change: StoredChange = { source: fact.source, attention: reason };
      const stored = await store.transition(order.id, order.version, patch, mismatch, owing(change, order), order);
      if (stored.ok) {
        const result: ApplyResult = { status: 'mismatch', order: stored.order, event: stored.event ?? undefined, reason };
        return { result, change };
      }
      if (!stored.current) return { result: { status: 'not_found', order: null, reason: 'the order no longer exists' } };
      if (await seen(order.id, dedupeKey)) return { result: { status: 'mismatch', order: stored.current, reason } };
      order = stored.current;
    }
    return { result: { status: 'busy', order, reason: 'the order kept changing under concurrent writers' } };
  }

  /**
   * `fresh`: the caller's copy of the order, read under the lease this call holds (`trusted`), or
   * read earlier without one; it saves a read. A write from it is checked by the compare-and-set;
   * an answer that writes no new version (noop, rejected, duplicate, a mismatch) is decided from an
   * untrusted copy only once a read shows the copy is still current.
   */
  async function settle(orderId: string, claim: PaymentFact, fresh?: Order, trusted = false): Promise<Settled> {
    let order = fresh ?? (await store.get(orderId));
    if (!order) return { result: { status: 'not_found', order: null, reason: 'the order no longer exists' } };
    let unchecked = fresh !== undefined && !trusted;
    /** The order as stored when the copy is unchecked and no longer current; null when it is current. */
    const newer = async (copy: Order): Promise<Order | 'gone' | null> => {
      if (!unchecked) return null;
      unchecked = false;
      const current = await store.get(copy.id);
      if (!current) return 'gone';
      return current.version === copy.version ? null : current;
    };
    const gone: Settled = { result: { status: 'not_found', order: null, reason: 'the order no longer exists' } };

    if (mismatchOf(order, claim) !== null) {
      // Amount and currency never change, but the attention flag the mismatch adds to may have.
      const current = await newer(order);
      if (current === 'gone') return gone;
      if (current !== null) order = current;
    }
    const claimMismatch = mismatchOf(order, claim);
    if (claimMismatch !== null) return flagMismatch(order, claim, claimMismatch, undefined);
    const confirming = claim.confirm === true && CONFIRMABLE_OUTCOMES.has(claim.outcome);
    // Checked up front only before asking the gateway; otherwise the store refuses a repeated
    // dedupe key in the same atomic write, and a refusal is told apart below.
    if (confirming && claim.dedupeKey !== undefined && (await seen(order.id, claim.dedupeKey))) {
      return { result: { status: 'duplicate', order, reason: 'this fact was already recorded' } };
    }

    let fact = claim;
    let confirmed: EventContext['confirmed'];
    /** Why the claim stays unconfirmed (not seen) although the gateway's answer was applied. */
    let unconfirmed: string | undefined;
    /** The answer was reused (a flood): it may predate a change the claim reports. */
    let reused = false;
    if (confirming) {
      const asked = await confirmingAnswer(order);
      const answer = asked.answer;
      reused = asked.reused;
      if (!answer) {
        // Not under the fact's dedupe key: a retried notification must be applied once the gateway knows the order.
        const reason = 'the gateway does not know this order (yet)';
        if (!(await quietLogFull(order.id))) await store.appendEvent(order.id, event({ type: 'unconfirmed', fact: claim, order, reason, dedupeKey: unconfirmedKey(claim) }));
        return { result: { status: 'noop', order, reason, unconfirmed: true } };
      }
      fact = withGatewayAnswer(claim, answer, order);
      const vouched = claim.refunds === undefined ? null : vouchedRefunds(claim, answer, await store.listRefunds(order.id));
      if (vouched !== null) fact = { ...fact, refunds: vouched.refunds };
      confirmed = { claimed: claim.outcome };
      const answerMismatch = mismatchOf(order, fact);
      if (answerMismatch !== null) return flagMismatch(order, fact, answerMismatch, confirmed);
      const unlisted = vouched?.unknown === true;
      if (answerIsBehind(claim.outcome, answer.outcome) || unlisted) {
        // The gateway has not caught up with the claim (paid while it still says requires_action,
        // or a refund its refund search does not list). Its answer is applied for what it says,
        // without the claim's dedupe key: the claim is not seen, so the same claim retried once
        // the gateway confirms it is applied then.
        unconfirmed = unlisted
          ? `the gateway does not list the refund this reports (yet; it says ${answer.outcome})`
          : `the gateway does not confirm ${claim.outcome} yet (it says ${answer.outcome})`;
        // Nor the claim's own refunds: a refund the gateway does not confirm yet moves no money.
        fact = { ...fact, dedupeKey: undefined, refunds: undefined };
        if (!(await quietLogFull(order.id))) await store.appendEvent(order.id, event({ type: 'unconfirmed', fact: claim, order, reason: unconfirmed, dedupeKey: unconfirmedKey(claim) }));
      }
    }

    let before: StoredChange | undefined;
    const done = (settled: Settled): Settled => {
      const withBefore = before === undefined ? settled : { ...settled, before };
      return unconfirmed === undefined ? withBefore : { ...withBefore, result: { ...withBefore.result, unconfirmed: true, reason: unconfirmed } };
    };
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      // Planned from the order just read, again after every lost compare-and-set. Refunds are
      // read after the order: rows newer than its version make the compare-and-set fail, never pass.
      const step = isRefundFact(fact) ? ledgerStep(order, await store.listRefunds(order.id), fact, now()) : null;
      let plan: Plan | null = step?.refused !== undefined ? null : planFact(order, step?.fact ?? fact, logger, now, step?.reasons);
      // New or settled refund rows are written even when the state stays (a pending staff refund).
      if (plan !== null && step?.changed === true && plan.kind === 'noop') plan = { kind: 'write', fact: plan.fact, type: 'refund', patch: {}, reason: plan.reason };
      if (plan === null || plan.kind !== 'write') {
        // Nothing the compare-and-set would check: decided only from an order known to be current.
        const current = await newer(order);
        if (current === 'gone') return gone;
        if (current !== null) {
          order = current;
          continue;
        }
      }
      if (reused && unconfirmed === undefined && (plan === null || plan.kind !== 'write')) {
        // A reused answer may confirm what it shows, never dismiss a claim: the claim may report a
        // change made after it was asked (a second refund notified without its refund fields would
        // be a noop, answered 200 and never retried). Not seen, not recorded: the retry asks again.
        unconfirmed = 'the gateway was asked about this order moments ago, during a flood of its notifications; asked again on a retry';
        return done({ result: { status: 'noop', order, reason: unconfirmed } });
      }
      if (plan === null) return done({ result: { status: 'rejected', order, reason: step?.refused ?? 'refused' } });
      const capture = plan.kind === 'reject' && before === undefined ? impliedCapture(order, plan.fact, logger, now) : null;
      if (capture?.moved !== undefined) {
        // A refund or chargeback of a capture this order never recorded: store the capture first.
        const written = event({ type: 'transition', fact: capture.fact, order, to: 'paid', reason: 'implied by the refund or chargeback the gateway reports', confirmed });
        const captured: StoredChange = { source: fact.source, transition: capture.moved, attention: capture.raised };
        const stored = await store.transition(order.id, order.version, capture.patch, written, owing(captured, order), order);
        if (!stored.ok && !stored.current) return { result: { status: 'not_found', order: null, reason: 'the order no longer exists' } };
        if (stored.ok) before = captured;
        order = stored.ok ? stored.order : (stored.current ?? order);
        continue;
      }
      if (plan.kind === 'reject') {
        logger.warn({ orderId: order.id, orderNo: order.orderNo, state: order.state, outcome: plan.fact.outcome, source: fact.source }, `Fact rejected: ${plan.reason}`);
        if (fact.dedupeKey !== undefined && (await seen(order.id, fact.dedupeKey))) return done(duplicate(order));
        if (await quietLogFull(order.id)) return done({ result: { status: 'rejected', order, reason: plan.reason } });
        // Without a key, one record per (version, outcome): a poller repeating it adds nothing.
        const dedupeKey = fact.dedupeKey ?? `rejected:${order.version}:${plan.fact.outcome}`;
        const appended = await store.appendEvent(order.id, event({ type: 'rejected', fact: plan.fact, order, reason: plan.reason, confirmed, dedupeKey }));
        if (!appended.appended && fact.dedupeKey !== undefined) return done(duplicate(order));
        return done({ result: { status: 'rejected', order, event: appended.appended ? appended.event : undefined, reason: plan.reason } });
      }
      if (plan.kind === 'noop') {
        if (fact.dedupeKey === undefined) return done({ result: { status: 'noop', order, reason: plan.reason } });
        if (await seen(order.id, fact.dedupeKey)) return done(duplicate(order));
        if (await quietLogFull(order.id)) return done({ result: { status: 'noop', order, reason: plan.reason } });
        const appended = await store.appendEvent(order.id, event({ type: 'ignored', fact: plan.fact, order, reason: plan.reason, confirmed }));
        if (!appended.appended) return done(duplicate(order));
        return done({ result: { status: 'noop', order, event: appended.event, reason: plan.reason } });
      }
      const written = event({ type: plan.type, fact: plan.fact, order, to: plan.moved?.to, reason: plan.reason, confirmed });
      if (step !== null && step.upserts.length > 0) written.data = { ...written.data, refunds: step.upserts.map(({ id, referenceId, amount, status }) => ({ id, referenceId, amount, status })) };
      const withMethod = fact.method === undefined || fact.method === order.method ? plan.patch : merged(plan.patch, { method: fact.method });
      const patch = plan.moved && isConfirmed(fact, confirmed) ? clearStaleMismatch(order, withMethod) : withMethod;
      const change: StoredChange = { source: fact.source, transition: plan.moved, attention: plan.raised, refundedIn: step?.grew === true ? (plan.moved?.to ?? order.state) : undefined };
      const stored = await store.transition(order.id, order.version, patch, written, withRefunds(owing(change, order), step), order);
      if (stored.ok) {
        const storedEvent = stored.event ?? undefined;
        const result: ApplyResult = plan.moved
          ? { status: 'applied', order: stored.order, event: storedEvent }
          : { status: 'noop', order: stored.order, event: storedEvent, reason: plan.reason };
        if (!plan.moved && plan.raised === undefined && change.refundedIn === undefined) return done({ result });
        return done({ result, change });
      }
      if (!stored.current) return { result: { status: 'not_found', order: null, reason: 'the order no longer exists' } };
      if (fact.dedupeKey !== undefined && (await seen(order.id, fact.dedupeKey))) {
        return done({ result: { status: 'duplicate', order: stored.current, reason: 'this fact was already recorded' } });
      }
      order = stored.current;
    }
    return done({ result: { status: 'busy', order, reason: 'the order kept changing under concurrent writers' } });
  }

  async function apply(input: PaymentFact, applyOptions: ApplyOptions = {}): Promise<ApplyResult> {
    // A claim asking to be confirmed is not the gateway's word: its subscription details are
    // dropped, whatever its outcome, and only the gateway's answer gives them (withGatewayAnswer).
    const fact = withoutClaimedSubscription(parseFact(input));
    const known = applyOptions.known;
    const found = known !== undefined && known.id === fact.orderId ? known : await resolve(fact);
    if (!found) return { status: 'not_found', order: null, reason: 'no order matches this fact' };
    const heldLease = applyOptions.leaseOwner !== undefined;
    // A caller that held the lease when it read its copy (the sweeper, since its claim) hands over
    // an order no other lease holder can have changed; a lease-free writer's change since is
    // caught by the compare-and-set. A lease taken here is newer than any copy: read afresh.
    const reused = heldLease && found === known ? found : undefined;
    const settled = needsLease(fact, applyOptions.leaseOwner)
      ? await locks.run(found.id, applyOptions.leaseOwner ?? `${owner}#${++calls}`, heldLease, () => settle(found.id, fact, reused, true))
      : await locks.serial(found.id, (waited) => settle(found.id, fact, waited ? undefined : found));
    if (settled === BUSY) return { status: 'busy', order: found, reason: 'another process holds the order lease' };
    // A write makes the answer kept for the order stale: the next confirmation asks again.
    answers.settled(found.id, settled.result.order);
    logger.debug(
      { orderId: found.id, orderNo: found.orderNo, source: fact.source, outcome: fact.outcome, status: settled.result.status },
      'Payment fact reconciled',
    );
    if (settled.change?.attention !== undefined) {
      logger.warn({ orderId: found.id, orderNo: found.orderNo, source: fact.source, attention: settled.change.attention }, 'Order flagged for attention');
    }
    reportChange(options.observer, settled.result.order, settled.before);
    reportChange(options.observer, settled.result.order, settled.change);
    // Delivered now, so the caller answers after its hooks ran; the loop retries what fails.
    const deduction = found.parentId !== undefined;
    const owed = [settled.before, settled.change].some((c) => c !== undefined && owedHooks(hooks, merged(c, { deduction })).length > 0);
    if (owed) await outbox.deliver(found.id);
    return settled.result;
  }

  return {
    apply,
    outbox,

    async confirm(target, source, actor) {
      const order = typeof target === 'string' ? ((await store.get(target)) ?? (await store.getByOrderNo(target))) : await store.get(target.id);
      if (!order) return { status: 'not_found', order: null, reason: 'no such order' };
      const answer = await queryGateway(order.orderNo);
      if (!answer) return { status: 'noop', order, reason: 'the gateway does not know this order (yet)', unconfirmed: true };
      const fact = factFromAnswer(order.id, answer, source, actor);
      // Still only authorised at the gateway: a requested capture whose answer was lost did not
      // happen, so it is withdrawn and the order may be captured again.
      const uncaptured = answer.outcome === 'authorized' && order.state === 'authorized' && requestedCaptureOf(order) !== undefined;
      return apply(uncaptured ? { ...fact, orderData: { ...fact.orderData, [REQUESTED_CAPTURE]: null } } : fact);
    },

    async record(orderId, newEvent) {
      const newest = QUIET_TYPES.has(newEvent.type) ? await quietRun(orderId) : null;
      if (newest !== null) return { appended: false, existing: newest };
      return store.appendEvent(orderId, { ...newEvent, data: cardFree(newEvent.data, logger) });
    },
  };
}
