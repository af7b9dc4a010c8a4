/**
 * The subscription schedule: charges every deduction that is due on the sandbox clock, as a
 * gateway's recurring engine would. A deduction is a transaction of its own (new transaction_id,
 * the subscription's order_no, `recurring_id`, `recurring_deduction_time` of the period it
 * charges for), auto-captured from the card of the first payment and notified to its notify_url
 * like any payment. A declined deduction is a declined transaction; the schedule moves on to the
 * next period (no retry), as the merchant is told and decides. The schedule stops at cancel,
 * after `billing_cycle` deductions, or when the next one would fall after `contract_end`.
 */
import { findAccount, type SandboxContext } from './context.js';
import { nextDeduction, notify, setStatus, STATUS, subscriptionFields } from './payments.js';
import { newTransaction } from './transactions.js';
import type { SandboxSubscription, SandboxTransaction } from './types.js';
import { RESULT_INFO } from './wire/codes.js';
import { readDecimalAmount } from './wire/format.js';

/** Deductions charged per subscription in one run: a clock moved years ahead stays bounded. */
const MAX_PER_RUN = 500;

/** What one deduction charges: the first payment's amount during the promotion, then contract_amount. */
function deductionAmount(subscription: SandboxSubscription, number: number): number {
  const first = subscription.firstAmount ?? 0;
  if (number <= (subscription.promotionCycle ?? 0)) return first;
  const contract = readDecimalAmount(subscription.contractAmount, subscription.currency);
  return typeof contract === 'number' ? contract : first;
}

function charge(ctx: SandboxContext, subscription: SandboxSubscription, at: Date, number: number): SandboxTransaction | null {
  const parent = ctx.ledger.tx.get(subscription.transactionId);
  const account = findAccount(ctx, subscription.merchantId, subscription.accountId);
  if (parent === undefined || account === undefined) return null;
  const tx = newTransaction({ ...account, captureMode: 'auto' }, {
    orderNo: subscription.orderNo,
    kind: parent.kind,
    paymentMethod: parent.paymentMethod,
    amount: deductionAmount(subscription, number),
    currency: subscription.currency,
    notifyUrl: parent.notifyUrl,
    details: parent.details,
  });
  tx.card = parent.card;
  tx.tokenId = parent.tokenId;
  tx.recurringId = subscription.recurringId;
  tx.deductionOf = parent.transactionId;
  tx.deductionAt = at.toISOString();
  // transaction_date is the sandbox clock's: the deduction happened when the schedule says.
  tx.createdAt = at.toISOString();
  const failure = subscription.failNext ?? null;
  if (failure === null) {
    setStatus(tx, STATUS.captured, `subscription deduction ${number}`);
    tx.capturedAmount = tx.amount;
  } else {
    setStatus(tx, STATUS.declined(failure), `subscription deduction ${number} declined`);
  }
  ctx.ledger.saveTransaction(tx);
  notify(ctx, tx, 'payment', subscriptionFields(ctx, tx));
  return tx;
}

/** One due step of one subscription, in one SQLite transaction: the deduction, its notification and the schedule move together. */
function step(ctx: SandboxContext, subscription: SandboxSubscription, charged: SandboxTransaction[]): SandboxSubscription {
  const at = new Date(subscription.nextDeductionAt);
  const next: SandboxSubscription = { ...subscription };
  const end = subscription.contractEnd ?? null;
  if (end !== null && at.getTime() > Date.parse(end)) {
    next.status = 'ended';
    next.endedAt = end;
  } else {
    const number = (subscription.deductions ?? 0) + 1;
    const tx = charge(ctx, subscription, at, number);
    if (tx === null) {
      next.status = 'ended';
      next.endedAt = at.toISOString();
    } else {
      charged.push(tx);
      next.deductions = number;
      next.failNext = null;
      next.nextDeductionAt = nextDeduction(at, subscription.interval, subscription.intervalCount, subscription.anchorDay).toISOString();
      const cycles = subscription.billingCycle ?? 0;
      if (cycles > 0 && number >= cycles) {
        next.status = 'ended';
        next.endedAt = at.toISOString();
      }
    }
  }
  ctx.ledger.subscriptionRows.put(next.recurringId, next);
  return next;
}

/** Charges every deduction due on the sandbox clock; returns the deduction transactions, oldest first. */
export function runDueDeductions(ctx: SandboxContext): SandboxTransaction[] {
  const now = ctx.clock.now().getTime();
  const charged: SandboxTransaction[] = [];
  for (const subscription of ctx.ledger.subscriptionRows.all()) {
    let current = subscription;
    for (let i = 0; i < MAX_PER_RUN && current.status === 'active' && Date.parse(current.nextDeductionAt) <= now; i++) {
      const from = current;
      current = ctx.ledger.database.atomically(() => step(ctx, from, charged));
    }
  }
  return charged;
}

/** Makes the next deduction of a subscription fail with `resultInfo` (default: insufficient funds). */
export function failNextDeduction(ctx: SandboxContext, recurringId: string, resultInfo: string = RESULT_INFO.insufficientFunds): SandboxSubscription | undefined {
  const subscription = ctx.ledger.subscriptionRows.get(recurringId);
  if (subscription === undefined) return undefined;
  const changed = { ...subscription, failNext: resultInfo };
  ctx.ledger.subscriptionRows.put(recurringId, changed);
  return changed;
}

/** Runs the schedule on real time too, so a sandbox left running charges its deductions. */
export class DeductionScheduler {
  readonly #ctx: SandboxContext;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(ctx: SandboxContext, intervalMs: number) {
    this.#ctx = ctx;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      try {
        runDueDeductions(this.#ctx);
      } catch (error) {
        this.#ctx.options.logger.error({ error }, 'sandbox deduction run failed');
      }
    }, this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
