/**
 * Where a verified notification goes: a payment, refund or dispute to its order's reconcile
 * engine; a payout result to the payout staff sent; one the kit does not understand onto its
 * order as an `notification_unrecognised` event (flagged for staff); and anything no order or
 * payout matches onto the admin store's list of unmatched notifications. Each is kept durably
 * before the caller acknowledges it; `retry` means nothing was settled and the gateway should
 * send it again.
 */
import type { PayoutRecord, PayoutStatus } from '../admin/store.js';
import type { NotificationFact } from '../gateway/operations/notifications.js';
import { resultTextOf, splitCodeText, STEP_RESULT_CODES } from '../gateway/codes.js';
import type { NotificationResult } from '../observability/observer.js';
import { confirmDeduction } from '../orders/deduction-confirm.js';
import { isDeductionOf, recordDeduction, subscriptionData, type DeductionReport } from '../orders/subscriptions.js';
import type { Order } from '../orders/types.js';
import type { KitContext } from './context.js';
import { createGatewayPort } from './gateway-port.js';

export interface Taken {
  status: 'taken' | 'retry';
  reason?: string;
  /** How it ended, for the notifications metric. */
  result?: NotificationResult;
}

const RESULT_OF_APPLY: Readonly<Record<string, NotificationResult>> = {
  applied: 'applied', noop: 'ignored', duplicate: 'duplicate', mismatch: 'mismatch', rejected: 'rejected',
};

/** A payout still being submitted may be notified before its transaction id is stored. */
const SUBMITTING_GRACE_MS = 10 * 60 * 1000;

export async function findNotifiedOrder(ctx: KitContext, orderNo: string | null | undefined, transactionId: string | null | undefined): Promise<Order | null> {
  const byNo = orderNo != null && orderNo !== '' ? await ctx.store.getByOrderNo(orderNo.slice(0, 50)) : null;
  if (byNo !== null) return byNo;
  return transactionId != null && transactionId !== '' ? ctx.store.getByTransactionId(transactionId.slice(0, 50)) : null;
}

async function keepUnmatched(ctx: KitContext, fact: NotificationFact, why: string): Promise<Taken> {
  const kept = await ctx.adminStore.recordNotification({
    dedupeKey: fact.dedupeKey, kind: fact.kind, type: fact.type, orderNo: fact.orderNo, transactionId: fact.transactionId,
    problem: fact.problem ?? why, summary: fact.summary, receivedAt: new Date(),
  });
  ctx.logger.warn({ ...fact.summary, why }, 'checkout: notification kept as unmatched');
  return { status: 'taken', reason: kept ? why : 'already kept as unmatched', result: 'unmatched' };
}

async function takeUnrecognised(ctx: KitContext, fact: NotificationFact, order: Order): Promise<Taken> {
  const problem = fact.problem ?? 'not understood';
  // Flag first, then record: the reason is the same text for every such notification (staff are
  // told once, and a retry after a failure in between adds nothing; no field of the body is in it,
  // as those outside the signature can say anything), while the event under the notification's
  // dedupe key is what makes it seen (the engine stops such records after ten in a row).
  await ctx.engine.apply({
    orderId: order.id, source: 'notify', actor: 'gateway', outcome: 'unknown',
    attention: 'A notification the kit does not understand was received: see its event and check the order in the gateway portal.',
  }, { known: order });
  const recorded = await ctx.engine.record(order.id, {
    type: 'notification_unrecognised', source: 'notify', actor: 'gateway', dedupeKey: fact.dedupeKey, data: { ...fact.summary, problem },
  });
  return { status: 'taken', reason: recorded.appended ? problem : 'already recorded', result: recorded.appended ? 'unrecognised' : 'duplicate' };
}

function payoutStatusOf(fact: NotificationFact): PayoutStatus | null {
  const status = fact.summary.status;
  if (status !== undefined) {
    if (/COMPLETE|SUCCESS|PAID/i.test(status)) return 'completed';
    if (/FAIL|REJECT|CANCEL|RETURN/i.test(status)) return 'failed';
    return null;
  }
  if (fact.outcome === 'approved') return 'completed';
  if (fact.outcome === 'declined' || fact.outcome === 'failed' || fact.outcome === 'cancelled') return 'failed';
  return null;
}

/** Payout notifications of one payout, one after the other in this process (so the hook fires once per change). */
const payoutQueues = new WeakMap<KitContext, Map<string, Promise<unknown>>>();

function serialPerPayout<T>(ctx: KitContext, key: string, run: () => Promise<T>): Promise<T> {
  let queues = payoutQueues.get(ctx);
  if (queues === undefined) {
    queues = new Map();
    payoutQueues.set(ctx, queues);
  }
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.then(run, run);
  const settled = next.catch(() => undefined);
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return next;
}

async function takePayout(ctx: KitContext, fact: NotificationFact): Promise<Taken> {
  const key = fact.transactionId ?? fact.requestId ?? '';
  return serialPerPayout(ctx, key, () => takePayoutNow(ctx, fact));
}

/**
 * A payout whose answer was lost (or is still on its way) has no transaction id yet; its
 * notification names it by its order number, the payout's reference (else its request id). Taken only
 * when exactly one such recent payout in the notification's currency matches.
 */
async function payoutAwaitingAnswer(ctx: KitContext, fact: NotificationFact): Promise<PayoutRecord | null> {
  if (fact.orderNo === null) return null;
  const recent = await ctx.adminStore.listPayouts({ limit: 50 });
  const open = recent.filter((p) => p.transactionId === null && (p.status === 'submitting' || p.status === 'unknown')
    && (p.requestId === fact.orderNo || (p.reference !== '' && p.reference === fact.orderNo))
    && (fact.currency === null || p.currency === fact.currency));
  return open.length === 1 ? (open[0] ?? null) : null;
}

async function takePayoutNow(ctx: KitContext, fact: NotificationFact): Promise<Taken> {
  const requestId = fact.requestId;
  const payout = (fact.transactionId === null ? null : await ctx.adminStore.getPayoutByTransactionId(fact.transactionId))
    ?? (requestId === null ? null : await ctx.adminStore.getPayout(requestId))
    ?? (await payoutAwaitingAnswer(ctx, fact));
  if (payout === null) {
    const recent = await ctx.adminStore.listPayouts({ limit: 20 });
    const inFlight = recent.some((p) => p.status === 'submitting' && Date.now() - p.createdAt.getTime() < SUBMITTING_GRACE_MS);
    // The gateway's answer (with the transaction id) may not be stored yet: ask again shortly.
    if (inFlight) return { status: 'retry', reason: 'a payout is still being submitted' };
    return keepUnmatched(ctx, fact, 'no payout has this transaction id');
  }
  const to = payoutStatusOf(fact);
  if (to === null) return { status: 'taken', reason: `payout already ${payout.status}` };
  const message = `${to === 'failed' ? (fact.resultInfo ?? fact.summary.status ?? 'failed') : (fact.summary.status ?? 'completed')} (notification)`;
  if (to === payout.status) {
    // The answer said so already: staff see that the gateway's notification confirmed it.
    if (payout.message?.endsWith('(notification)') !== true) await ctx.adminStore.updatePayout(payout.requestId, { message });
    return { status: 'taken', reason: `payout already ${payout.status}` };
  }
  const transactionId = payout.transactionId === null && fact.transactionId !== null ? { transactionId: fact.transactionId } : {};
  // The hook runs before the new status is stored: while the status is not stored, the hook is
  // owed, and the gateway's resend of this notification (it gets 503) calls it again.
  const changed: PayoutRecord = { ...payout, status: to, message, ...transactionId, updatedAt: new Date() };
  if (!(await payoutHook(ctx, changed, payout.status, fact.type))) {
    // Staff see why the status has not moved yet; the transaction id finds the payout on the resend.
    const owed = `the gateway reports this payout ${to} (${message.slice(0, 200)}); the shop's onPayoutChanged hook failed, so the status is stored once it succeeds on the gateway's resend`;
    if ((await ctx.adminStore.updatePayout(payout.requestId, { message: owed, ...transactionId })) === null) return { status: 'retry', reason: 'the payout vanished' };
    return { status: 'retry', reason: 'the payout hook failed' };
  }
  const updated = await ctx.adminStore.updatePayout(payout.requestId, { status: to, message, ...transactionId });
  if (updated === null) return { status: 'retry', reason: 'the payout vanished' };
  return { status: 'taken', reason: `payout ${payout.status} → ${to}` };
}

/** Calls the shop's payout hook; false when it threw (logged), so the change is still owed. */
async function payoutHook(ctx: KitContext, payout: PayoutRecord, from: PayoutStatus, type: string): Promise<boolean> {
  const hook = ctx.options.hooks.onPayoutChanged;
  if (hook === undefined) return true;
  try {
    await hook(structuredClone(payout), { from, to: payout.status, type });
    return true;
  } catch (err) {
    ctx.logger.error({ requestId: payout.requestId, hook: 'onPayoutChanged', err }, 'Payout hook failed; the notification is answered 503 so the gateway sends it again');
    return false;
  }
}

/**
 * A subscription's deduction: recorded on its own child order of `parent` (orders/subscriptions.ts).
 * With `confirmNotifications`, confirmed first by the query's listing of the parent's order
 * number, which names each transaction (orders/deduction-confirm.ts).
 */
async function takeDeduction(ctx: KitContext, fact: NotificationFact, parent: Order): Promise<Taken> {
  const recurring = fact.recurring;
  if (recurring === null || fact.transactionId === null) return { status: 'taken', reason: 'not a deduction' };
  const claim: DeductionReport = {
    parent, transactionId: fact.transactionId, outcome: fact.outcome, amount: fact.amount, currency: fact.currency,
    recurringId: recurring.recurringId, contractName: recurring.contractName, period: recurring.period, time: recurring.time,
    maskedCard: fact.maskedCard, source: 'notify', dedupeKey: fact.dedupeKey, data: fact.summary,
  };
  const { report, unconfirmed } = ctx.options.confirmNotifications ? await confirmDeduction(createGatewayPort(ctx.client), claim) : { report: claim };
  if (report === null) {
    ctx.logger.warn({ ...fact.summary, why: unconfirmed }, 'checkout: deduction notification not confirmed by the gateway');
    return { status: 'retry', reason: unconfirmed ?? 'unconfirmed' };
  }
  const result = await recordDeduction({ store: ctx.store, engine: ctx.engine }, report);
  if (result.status === 'busy') return { status: 'retry', reason: result.reason ?? result.status };
  if (unconfirmed !== undefined) return { status: 'retry', reason: unconfirmed };
  return { status: 'taken', reason: `deduction ${result.status}`, result: RESULT_OF_APPLY[result.status] ?? 'applied' };
}

/**
 * Details the notification adds to its order: a dispute's reason, or the subscription a first
 * payment started (its notification is often the first fact to name it after the hosted page or
 * 3-D Secure), so the sweeper and the admin find the subscription by `data.recurringId`. The
 * subscription fields are outside the signature: a claim to confirm loses them in the engine,
 * which takes them from the gateway's answer only.
 */
function orderDataOf(fact: NotificationFact, order: Order): { orderData?: Record<string, unknown> } {
  // The first reason stays: it is outside the signature, so a later body must not replace it (the
  // engine keeps it only when the gateway confirms the chargeback).
  if (fact.kind === 'dispute' && fact.chargebackReason !== null) return order.data.chargebackReason === undefined ? { orderData: { chargebackReason: fact.chargebackReason.slice(0, 500) } } : {};
  const own = order.parentId === undefined && fact.kind === 'payment' && (order.transactionId === null || order.transactionId === fact.transactionId);
  const recurring = own ? fact.recurring : null;
  const subscription = recurring === null ? undefined : subscriptionData({ recurringId: recurring.recurringId, contractName: recurring.contractName, period: recurring.period });
  // The result code, as the pay answer records it, when the order has none yet: a notification
  // that settles the payment before the answer arrives still leaves the decline's reason on the
  // order (metrics, admin). A refusal's code replaces a code that named a step: after a 3-D Secure
  // challenge the answer's code says "authentication required", the refusal says why it ended.
  // (The engine merges it only while the order is in, or moves into, the state reported.)
  // result_info is outside the signature, and the shopper's browser holds signed return fields it
  // could post here with any result_info: so the text is this kit's for the code, never the
  // body's, and a refusal code already on the order is not replaced.
  const refusal = fact.outcome === 'declined' || fact.outcome === 'failed';
  const current = order.data.resultCode;
  const open = current === undefined || (refusal && typeof current === 'string' && STEP_RESULT_CODES.has(current.slice(0, 4)));
  const result = own && open ? splitCodeText(fact.resultInfo) : null;
  // Codes as the gateway writes them (0000, 0051): anything else is no code a shopper could plant.
  const code = result !== null && /^[0-9]{4}$/.test(result.code) ? result.code : '';
  const data = code === '' ? subscription : { ...subscription, resultCode: code, resultText: resultTextOf(code) ?? '' };
  return data === undefined ? {} : { orderData: data };
}

/**
 * The deduction (child order of `parent`) with this transaction id, when there is one. A first
 * payment without a transaction id has none (deductions are recorded only under a paid first
 * payment, see isDeductionOf), so its notifications, the common case, cost no lookup.
 */
async function deductionNamed(ctx: KitContext, parent: Order, transactionId: string | null): Promise<Order | null> {
  if (parent.parentId !== undefined || parent.transactionId === null) return null;
  if (transactionId === null || transactionId === '' || transactionId === parent.transactionId) return null;
  const child = await ctx.store.getByTransactionId(transactionId.slice(0, 50));
  return child?.parentId === parent.id ? child : null;
}

/** Takes one verified notification. Throws only for store or gateway failures (the caller answers 503). */
export async function takeNotification(ctx: KitContext, fact: NotificationFact): Promise<Taken> {
  if (fact.kind === 'payout') return { result: 'payout', ...(await takePayout(ctx, fact)) };
  const named = await findNotifiedOrder(ctx, fact.orderNo, fact.transactionId);
  if (named === null) return keepUnmatched(ctx, fact, 'no order has this order number or transaction id');
  if (fact.kind === 'unrecognised') return takeUnrecognised(ctx, fact, named);
  if (fact.kind === 'payment' && isDeductionOf(named, fact.transactionId, fact.recurring?.recurringId ?? null)) return takeDeduction(ctx, fact, named);
  // A refund or dispute of a deduction names its first payment's order number and the deduction's
  // transaction id: it belongs to the deduction's own order, never to the first payment.
  const order = (await deductionNamed(ctx, named, fact.transactionId)) ?? named;

  const sameOrderNo = fact.orderNo === null || fact.orderNo === order.orderNo || order.parentId !== undefined;
  const refund = (fact.outcome === 'partially_refunded' || fact.outcome === 'refunded') && fact.refundReferenceId !== null && fact.refundAmount !== null && fact.refundAmount > 0;
  const result = await ctx.engine.apply({
    orderId: order.id,
    ...(sameOrderNo ? {} : { orderNo: fact.orderNo ?? undefined }),
    transactionId: fact.transactionId,
    source: 'notify',
    outcome: fact.outcome,
    ...(fact.amount === null ? {} : { amount: fact.amount }),
    ...(fact.currency === null ? {} : { currency: fact.currency }),
    ...(fact.maskedCard === null ? {} : { maskedCard: fact.maskedCard }),
    // A refund's notification names the refund: one row of the order's refund ledger, counted
    // once however many times (and by however many roads) it arrives.
    ...(refund ? { refunds: [{ referenceId: (fact.refundReferenceId ?? '').slice(0, 100), amount: fact.refundAmount ?? 0, status: 'succeeded' as const }] } : {}),
    ...orderDataOf(fact, order),
    dedupeKey: fact.dedupeKey,
    actor: 'gateway',
    confirm: ctx.options.confirmNotifications,
    data: fact.summary,
  }, { known: order });
  if (result.status === 'busy' || result.unconfirmed === true) return { status: 'retry', reason: result.reason ?? result.status };
  if (result.status === 'not_found') return keepUnmatched(ctx, fact, 'the order no longer exists');
  return { status: 'taken', reason: result.reason ?? result.status, result: RESULT_OF_APPLY[result.status] ?? 'applied' };
}
