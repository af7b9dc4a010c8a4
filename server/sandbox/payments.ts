/**
 * Payment state changes shared by direct, APM, hosted and issuer flows, and the notification
 * each change sends. Statuses and result texts come from wire/codes.ts only.
 */
import { DECLINE_RESULT, type CardBehaviour } from './cards.js';
import { findAccount, type SandboxContext } from './context.js';
import { newRecurringId, newTokenId } from './ids.js';
import type { SandboxAccount, SandboxSubscription, SandboxTransaction, SubscriptionRequest } from './types.js';
import { NOTIFICATION_TYPES, ORDER_STATUS, PAYMENT_STATUS, RESULT_INFO, type NotificationType } from './wire/codes.js';
import { daySpaceTime, decimalAmount } from './wire/format.js';
import { sign } from './wire/signature.js';

export interface Status {
  orderStatus: string;
  paymentStatus: string;
  resultInfo: string;
}

export const STATUS = {
  captured: { orderStatus: ORDER_STATUS.approved, paymentStatus: PAYMENT_STATUS.completed, resultInfo: RESULT_INFO.success },
  authorized: { orderStatus: ORDER_STATUS.authorized, paymentStatus: PAYMENT_STATUS.authorized, resultInfo: RESULT_INFO.success },
  inReview: { orderStatus: ORDER_STATUS.inReview, paymentStatus: PAYMENT_STATUS.inReview, resultInfo: RESULT_INFO.pendingReview },
  failed: { orderStatus: ORDER_STATUS.failed, paymentStatus: PAYMENT_STATUS.failed, resultInfo: RESULT_INFO.processingError },
  challenge: { orderStatus: ORDER_STATUS.requiresAction, paymentStatus: PAYMENT_STATUS.requiresAction, resultInfo: RESULT_INFO.challengeRequired },
  issuer: { orderStatus: ORDER_STATUS.requiresAction, paymentStatus: PAYMENT_STATUS.requiresAction, resultInfo: RESULT_INFO.issuerRedirect },
  declined: (resultInfo: string): Status => ({ orderStatus: ORDER_STATUS.declined, paymentStatus: PAYMENT_STATUS.declined, resultInfo }),
  cancelled: (resultInfo: string): Status => ({ orderStatus: ORDER_STATUS.cancelled, paymentStatus: PAYMENT_STATUS.cancelled, resultInfo }),
} as const;

/** Moves a transaction to `status` and records the step in its history (caller saves). */
export function setStatus(tx: SandboxTransaction, status: Status, event: string): void {
  const at = new Date().toISOString();
  tx.orderStatus = status.orderStatus;
  tx.paymentStatus = status.paymentStatus;
  tx.resultInfo = status.resultInfo;
  tx.updatedAt = at;
  tx.history.push({ at, event, ...status });
}

const INTERVAL_DAYS: Readonly<Record<string, number>> = { day: 1, week: 7, month: 0, year: 0 };

/**
 * The next deduction time: `intervalCount` intervals after `from`. Months and years go by the
 * calendar and keep the contract's day of the month (`anchorDay`, default `from`'s), clamped to
 * the month's last day: 31 January → 28 (29) February → 31 March, never 3 March.
 */
export function nextDeduction(from: Date, interval: string, intervalCount: number, anchorDay: number = from.getUTCDate()): Date {
  const next = new Date(from.getTime());
  if (interval !== 'month' && interval !== 'year') {
    next.setUTCDate(next.getUTCDate() + (INTERVAL_DAYS[interval] ?? 1) * intervalCount);
    return next;
  }
  const months = from.getUTCMonth() + (interval === 'year' ? 12 : 1) * intervalCount;
  // Year, month and day 1 at once, so a long month's day cannot overflow into the next month.
  next.setUTCFullYear(from.getUTCFullYear(), months, 1);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(anchorDay, lastDay));
  return next;
}

function createSubscription(ctx: SandboxContext, tx: SandboxTransaction, request: SubscriptionRequest): SandboxSubscription {
  const now = ctx.clock.now();
  // Deductions count from contract_start when it is later than the first payment.
  const start = request.contractStart !== null && Date.parse(request.contractStart) > now.getTime() ? new Date(request.contractStart) : now;
  const subscription: SandboxSubscription = {
    recurringId: newRecurringId(),
    transactionId: tx.transactionId,
    merchantId: tx.merchantId,
    accountId: tx.accountId,
    orderNo: tx.orderNo,
    contractName: request.contractName,
    contractAmount: request.contractAmount,
    currency: tx.currency,
    interval: request.interval,
    intervalCount: request.intervalCount,
    period: `${request.intervalCount} ${request.interval}`,
    status: 'active',
    nextDeductionAt: nextDeduction(start, request.interval, request.intervalCount).toISOString(),
    anchorDay: start.getUTCDate(),
    createdAt: now.toISOString(),
    cancelledAt: null,
    billingCycle: request.billingCycle,
    promotionCycle: request.promotionCycle,
    contractEnd: request.contractEnd,
    firstAmount: tx.amount,
    deductions: 0,
    failNext: null,
    endedAt: null,
  };
  ctx.ledger.subscriptionRows.put(subscription.recurringId, subscription);
  tx.recurringId = subscription.recurringId;
  return subscription;
}

/** Approves a payment: a captured sale, or an authorisation in manual capture mode (cards only). */
export function approve(ctx: SandboxContext, tx: SandboxTransaction, account: SandboxAccount, event: string): void {
  const manual = tx.kind !== 'apm' && account.captureMode === 'manual';
  setStatus(tx, manual ? STATUS.authorized : STATUS.captured, event);
  tx.capturedAmount = manual ? 0 : tx.amount;
  tx.riskAction = 'ACCEPT';
  const pending = tx.pending;
  if (pending?.subscription) createSubscription(ctx, tx, pending.subscription);
  if (pending?.tokenize && tx.tokenId === '' && tx.card !== '') {
    tx.tokenId = newTokenId();
    ctx.ledger.tokens.put(tx.tokenId, {
      tokenId: tx.tokenId,
      merchantId: tx.merchantId,
      accountId: tx.accountId,
      card: tx.card,
      behaviour: pending.behaviour,
      createdAt: new Date().toISOString(),
    });
  }
  tx.pending = null;
}

/**
 * Applies a card's behaviour. Returns 'challenge' when the shopper must go to the 3-D Secure
 * page (the transaction waits at order_status -3), otherwise 'final'.
 */
export function applyCardBehaviour(
  ctx: SandboxContext,
  tx: SandboxTransaction,
  account: SandboxAccount,
  behaviour: CardBehaviour,
  threeDs: boolean,
): 'challenge' | 'final' {
  const decline = DECLINE_RESULT[behaviour];
  if (decline !== undefined) {
    setStatus(tx, STATUS.declined(decline), 'declined');
    tx.pending = null;
    return 'final';
  }
  switch (behaviour) {
    case 'challenge':
      if (!threeDs) {
        setStatus(tx, STATUS.declined(RESULT_INFO.challengeRequired), 'declined: 3-D Secure required');
        tx.pending = null;
        return 'final';
      }
      tx.is3ds = true;
      tx.threedsResult = '3-D Secure challenge required';
      setStatus(tx, STATUS.challenge, '3-D Secure challenge');
      return 'challenge';
    case 'review':
      tx.riskAction = 'REVIEW';
      tx.riskScore = '75';
      tx.riskReasons = [{ name: 'velocity', status: 'REVIEW' }];
      setStatus(tx, STATUS.inReview, 'held for risk review');
      return 'final';
    case 'processingError':
      setStatus(tx, STATUS.failed, 'processing error');
      tx.pending = null;
      return 'final';
    default:
      if (threeDs) {
        tx.is3ds = true;
        tx.threedsResult = 'Frictionless: authenticated without a challenge';
      }
      approve(ctx, tx, account, 'approved');
      return 'final';
  }
}

/**
 * Replies' subscription fields (authorise `respon`, notifications), empty when there is none.
 * `recurring_deduction_time` is the next deduction of the subscription, or, on a deduction's
 * own transaction, the time that deduction was charged for.
 */
export function subscriptionFields(ctx: SandboxContext, tx: SandboxTransaction): Record<string, string> {
  const subscription = tx.recurringId === '' ? undefined : ctx.ledger.subscriptionRows.get(tx.recurringId);
  const at = tx.deductionAt ?? subscription?.nextDeductionAt;
  return {
    contract_name: subscription?.contractName ?? '',
    recurring_id: subscription?.recurringId ?? '',
    recurring_deduction_period: subscription?.period ?? '',
    recurring_deduction_time: subscription && at !== undefined ? daySpaceTime(new Date(at)) : '',
  };
}

/** The fields every result carries (notification and return form share them). */
export function resultFields(tx: SandboxTransaction): Record<string, string> {
  return {
    merchant_id: tx.merchantId,
    account_id: tx.accountId,
    order_no: tx.orderNo,
    transaction_id: tx.transactionId,
    amount: decimalAmount(tx.amount, tx.currency),
    currency: tx.currency,
    order_status: tx.orderStatus,
    result_info: tx.resultInfo,
  };
}

/** Signs `fields` with the notification recipe of the transaction's account. */
export function signResult(ctx: SandboxContext, fields: Record<string, string>): string {
  const account = findAccount(ctx, fields.merchant_id ?? '', fields.account_id ?? '');
  return sign('notification', fields, account?.signKey ?? '', ctx.options.recipes);
}

/** The fields of the browser's POST back to return_url / cancel_url. */
export function returnFields(ctx: SandboxContext, tx: SandboxTransaction): Record<string, string> {
  const fields = resultFields(tx);
  fields.encryption_data = signResult(ctx, fields);
  return fields;
}

/**
 * The fields of a notification, signed. Added to one fresh object rather than spread: in V8
 * each property after an object spread costs about a microsecond, and every change notifies.
 */
export function notificationFields(
  ctx: SandboxContext,
  tx: SandboxTransaction,
  type: NotificationType,
  extra: Record<string, string> = {},
): Record<string, string> {
  const fields = resultFields(tx);
  fields.payment_status = tx.paymentStatus;
  fields.webhooks_type = type;
  fields.card = tx.card;
  Object.assign(fields, extra);
  fields.encryption_data = signResult(ctx, fields);
  return fields;
}

/** Sends the notification of a state change to the transaction's notify_url. */
export function notify(ctx: SandboxContext, tx: SandboxTransaction, type: NotificationType, extra: Record<string, string> = {}): void {
  // No notify_url: nothing is recorded or sent, so nothing needs signing either.
  if (!NOTIFICATION_TYPES.includes(type) || tx.notifyUrl === '') return;
  ctx.notifier.enqueue({
    merchantId: tx.merchantId,
    accountId: tx.accountId,
    transactionId: tx.transactionId,
    orderNo: tx.orderNo,
    webhooksType: type,
    url: tx.notifyUrl,
    // A payment that started or charges a subscription names it, as the direct reply does.
    fields: notificationFields(ctx, tx, type, type === 'payment' && tx.recurringId !== '' ? { ...subscriptionFields(ctx, tx), ...extra } : extra),
  });
}
