/**
 * POST /v1/refund: partial and multiple refunds up to the captured amount. Each refund gets
 * `refund_reference_id` `<transaction_id>-NN` and a unique `refund_reference`.
 */
import type { SandboxContext } from '../context.js';
import { jsonReply, type Reply } from '../http.js';
import { newRefundReference } from '../ids.js';
import { notify, setStatus } from '../payments.js';
import type { SandboxAccount, SandboxRefund, SandboxTransaction } from '../types.js';
import { amountOf, authenticate, validate } from '../validate.js';
import { ELEMENT_STATUS, LIMITS, PAYMENT_STATUS, REFUND_MESSAGE } from '../wire/codes.js';
import { decimalAmount, timestamp14 } from '../wire/format.js';
import { refundRequest } from '../wire/other-requests.js';
import { assertWithinLimit, envelope } from './batch-common.js';

interface RefundElement {
  transaction_id: string;
  order_no: string;
  currency: string;
  amount: string;
  refund_amount: string;
  refund_reason?: string | undefined;
}

type RefundOutcome = { message: string } | { refund: SandboxRefund; tx: SandboxTransaction };

const REFUNDABLE: readonly string[] = [PAYMENT_STATUS.completed, PAYMENT_STATUS.partiallyRefunded];

function uniqueReference(ctx: SandboxContext): string {
  const taken = new Set(ctx.ledger.refunds().map((r) => r.refundReference));
  let reference = newRefundReference();
  while (taken.has(reference)) reference = newRefundReference();
  return reference;
}

function refundOne(ctx: SandboxContext, account: SandboxAccount, element: RefundElement): RefundOutcome {
  const tx = ctx.ledger.byTransactionId(account.merchantId, account.accountId, element.transaction_id);
  if (tx?.orderNo !== element.order_no) return { message: REFUND_MESSAGE.notFound };
  if (tx.currency !== element.currency) return { message: REFUND_MESSAGE.currencyMismatch };
  if (tx.paymentStatus === PAYMENT_STATUS.refunded) return { message: REFUND_MESSAGE.exceedsRemaining };
  if (!REFUNDABLE.includes(tx.paymentStatus)) return { message: REFUND_MESSAGE.notCaptured };
  let amount: number;
  try {
    amount = amountOf(element.refund_amount, tx.currency, 'refund_amount');
  } catch {
    return { message: REFUND_MESSAGE.invalidAmount };
  }
  if (amount <= 0) return { message: REFUND_MESSAGE.invalidAmount };
  if (amount > tx.capturedAmount - tx.refundedAmount) return { message: REFUND_MESSAGE.exceedsRemaining };

  tx.refundCount += 1;
  tx.refundedAmount += amount;
  const full = tx.refundedAmount === tx.capturedAmount;
  setStatus(
    tx,
    { orderStatus: tx.orderStatus, paymentStatus: full ? PAYMENT_STATUS.refunded : PAYMENT_STATUS.partiallyRefunded, resultInfo: tx.resultInfo },
    `refunded ${decimalAmount(amount, tx.currency)}`,
  );
  const now = timestamp14(new Date());
  const refund: SandboxRefund = {
    refundReferenceId: `${tx.transactionId}-${String(tx.refundCount).padStart(2, '0')}`,
    refundReference: uniqueReference(ctx),
    transactionId: tx.transactionId,
    orderNo: tx.orderNo,
    merchantId: tx.merchantId,
    accountId: tx.accountId,
    currency: tx.currency,
    amount: tx.amount,
    refundAmount: amount,
    refundReason: element.refund_reason ?? '',
    refundStatus: ELEMENT_STATUS.ok,
    refundMessage: REFUND_MESSAGE.ok,
    paymentStatus: tx.paymentStatus,
    refundDate: now,
    refundProcessingDate: now,
    createdAt: new Date().toISOString(),
  };
  ctx.ledger.refundRows.put(refund.refundReferenceId, refund);
  ctx.ledger.updateTransaction(tx);
  return { refund, tx };
}

export function handleRefund(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'refund', fields);
  assertWithinLimit(fields, 'refund_orders', LIMITS.refund);
  const request = validate(refundRequest, fields);
  const done: { refund: SandboxRefund; tx: SandboxTransaction }[] = [];
  const results = ctx.ledger.database.atomically(() => {
    const elements = request.refund_orders.map((element) => {
      const outcome = refundOne(ctx, account, element);
      if ('refund' in outcome) done.push(outcome);
      // Object.assign, not a spread: properties added after a spread are slow in V8.
      return Object.assign({}, element, {
        refund_reason: element.refund_reason ?? '',
        refund_status: 'refund' in outcome ? ELEMENT_STATUS.ok : ELEMENT_STATUS.failed,
        refund_message: 'refund' in outcome ? REFUND_MESSAGE.ok : outcome.message,
        refund_reference: 'refund' in outcome ? outcome.refund.refundReference : '',
        refund_reference_id: 'refund' in outcome ? outcome.refund.refundReferenceId : '',
      });
    });
    // Recorded in the same commit as the refunds; sending starts after it.
    for (const { refund, tx } of done) {
      notify(ctx, tx, 'refund', { refund_amount: decimalAmount(refund.refundAmount, tx.currency), refund_reference_id: refund.refundReferenceId });
    }
    return elements;
  });
  return jsonReply(envelope(fields, 'refund_orders', results));
}
