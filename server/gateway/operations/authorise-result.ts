/**
 * Reads the `respon` of /v1/authorise into an AuthoriseResult. The reply's signature is checked
 * first: a signed reply must verify under one of the keys. An unsigned one is accepted (with
 * `signatureVerified` false) unless `requireReplySignatures` is on; the unsigned redirect to
 * `issuer_url` (APM and 3-D Secure, whose published reply has no signature element) is accepted
 * either way. A decline is a result (outcome "declined"), not an exception.
 */
import { ProtocolError } from '../../errors.js';
import { outcomeOfOrderStatus, splitCodeText, type PaymentOutcome } from '../codes.js';
import { describe, type ErrorContext } from '../core.js';
import type { AuthoriseResponse, RiskReason } from '../schemas/responses.js';
import { verifyMessage } from '../signing.js';
import { orNull, replyMinor, type ClientContext } from './context.js';

export interface AuthoriseResult {
  /** The wire `respon`, with any unmasked card number masked. */
  raw: AuthoriseResponse;
  orderNo: string;
  transactionId: string | null;
  /** Minor units. */
  amount: number;
  currency: string;
  orderStatus: string | null;
  outcome: PaymentOutcome;
  resultCode: string | null;
  resultText: string | null;
  /** Where the shopper must go next (3-D Secure challenge or APM issuer page). */
  issuerUrl: string | null;
  maskedCard: string | null;
  riskAction: string | null;
  riskScore: string | null;
  riskReasons: RiskReason[];
  threedsResult: string | null;
  recurringId: string | null;
  tokenId: string | null;
  /** True when the reply carried a signature that verified; false for an unsigned redirect. */
  signatureVerified: boolean;
}

/** The gateway should only ever send a masked card; mask anything that looks like a full one. */
export function maskCard(card: string | undefined): string | undefined {
  if (card === undefined || !/^\d{12,19}$/.test(card)) return card;
  return `${card.slice(0, 6)}${'*'.repeat(card.length - 10)}${card.slice(-4)}`;
}

export interface SentPayment {
  order_no: string;
  amount: string;
  currency: string;
}

export function toAuthoriseResult(
  reply: AuthoriseResponse,
  sent: SentPayment,
  ctx: ClientContext,
  ectx: ErrorContext,
): AuthoriseResult {
  const raw: AuthoriseResponse = { ...reply, card: maskCard(reply.card) };
  const issuerUrl = orNull(reply.issuer_url);
  const provided = orNull(reply.encryption_data);
  const details = { operation: ectx.operation, orderNo: ectx.orderNo };
  if (provided !== null) {
    if (!verifyMessage('authoriseResponse', reply, provided, ctx.verifyKeys, ctx.recipes)) {
      throw new ProtocolError('ERR_PROTOCOL_SIGNATURE', `${describe(ectx)}: the reply's signature does not verify`, { details });
    }
  } else if (issuerUrl === null && ctx.requireReplySignatures) {
    throw new ProtocolError('ERR_PROTOCOL_SIGNATURE', `${describe(ectx)}: the reply carries a result but no signature`, { details });
  }
  if (reply.order_no !== sent.order_no) {
    throw new ProtocolError('ERR_PROTOCOL_MALFORMED', `${describe(ectx)}: the reply is for another order number`, { details });
  }
  const currency = orNull(reply.currency) ?? sent.currency;
  const amount = replyMinor(orNull(reply.amount) ?? sent.amount, currency, 'amount', ectx);
  const result = splitCodeText(reply.result_info);
  const orderStatus = orNull(reply.order_status);
  const outcome = issuerUrl !== null && orderStatus === null ? 'requires_action' : outcomeOfOrderStatus(orderStatus);
  return {
    raw,
    orderNo: reply.order_no,
    transactionId: orNull(reply.transaction_id),
    amount,
    currency,
    orderStatus,
    outcome,
    resultCode: result?.code ?? null,
    resultText: result?.text ?? null,
    issuerUrl,
    maskedCard: orNull(raw.card),
    riskAction: orNull(reply.risk_action),
    riskScore: orNull(reply.risk_score),
    riskReasons: reply.risk_reasons ?? [],
    threedsResult: orNull(reply.threeds_result),
    recurringId: orNull(reply.recurring_id),
    tokenId: orNull(reply.token_id),
    signatureVerified: provided !== null,
  };
}
