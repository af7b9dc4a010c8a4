/**
 * Payouts (/v1/payout). Sent once, never re-sent: `request_id` (generated when not given) is the
 * reference to quote when settling a lost answer with the gateway. A failed payout is a result
 * (status, failure_reason), not an exception; a refused request is. A reply's encryption_data
 * must echo the request's: a different echo is a ProtocolError (ERR_PROTOCOL_SIGNATURE), and so
 * is a missing one under `requireReplySignatures`.
 *
 * Amounts go out as strings of digits (interface "Payout request": `payment_amount` "10000"), in
 * the unit of the client's `payoutAmountUnit`; an amount that unit cannot express exactly is a
 * ValidationError naming the field. The reply's number fields are read in the same unit.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ProtocolError, ValidationError } from '../../errors.js';
import { describe, parseJsonReply, send, type CallOptions, type ErrorContext } from '../core.js';
import { currencyExponent } from '../money.js';
import { payoutFields, payoutRequestSchema, payoutResponseSchema, type PayoutResponse } from '../schemas/payouts.js';
import {
  checkEcho, checkReturnStatus, identity, orNull, replyMinor, validate, withSignature, type ClientContext, type PayoutAmountUnit,
} from './context.js';
import { minorUnits } from './payment-inputs.js';

const { merchant_id: _m, account_id: _a, encryption_data: _e, ...payoutInputFields } = payoutFields;

export const payoutInputSchema = z
  .strictObject({
    ...payoutInputFields,
    request_id: payoutFields.request_id.optional(),
    payment_amount: minorUnits,
    source_amount: minorUnits.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.beneficiary === undefined && (value.beneficiary_id ?? '') === '') {
      ctx.addIssue({ code: 'custom', path: ['beneficiary'], message: 'is required unless beneficiary_id is given' });
    }
    if (value.source_amount !== undefined && value.source_currency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['source_currency'], message: 'is required with source_amount' });
    }
  });
/** Wire names; `payment_amount` and `source_amount` are minor units; `request_id` is optional. */
export type PayoutInput = z.input<typeof payoutInputSchema>;

export interface PayoutResult {
  raw: PayoutResponse;
  requestId: string;
  transactionId: string | null;
  /** COMPLETED is the observed value. */
  status: string | null;
  shortReferenceId: string | null;
  payerId: string | null;
  /** Minor units of payment_currency. */
  amountBeneficiaryReceives: number | null;
  /** Minor units of source_currency (payment_currency when none). */
  amountPayerPays: number | null;
  /** Minor units of feeCurrency. */
  feeAmount: number | null;
  feeCurrency: string | null;
  failureReason: string | null;
  failureType: string | null;
  createdAt: Date | null;
  lastUpdatedAt: Date | null;
}

export interface PayoutsApi {
  create(input: PayoutInput, options?: CallOptions): Promise<PayoutResult>;
}

const toDate = (value: string | undefined): Date | null => (value === undefined ? null : new Date(value));

/** Minor units to the payout's digit string in `unit`; refuses what the unit cannot express. */
export function toPayoutDigits(minor: number, currency: string, unit: PayoutAmountUnit, field: string): string {
  if (unit === 'minor') return String(minor);
  const scale = 10 ** currencyExponent(currency);
  if (minor % scale !== 0) {
    throw new ValidationError([
      { field, message: `must be a whole number of ${currency} (payoutAmountUnit 'major' sends whole units only); got ${minor} minor units` },
    ]);
  }
  return String(minor / scale);
}

/** A reply amount in the payout unit to minor units. */
function payoutReplyMinor(value: string | number, currency: string, unit: PayoutAmountUnit, field: string, ectx: ErrorContext): number {
  if (unit === 'major') return replyMinor(value, currency, field, ectx);
  const text = String(value);
  if (!/^\d{1,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new ProtocolError('ERR_PROTOCOL_MALFORMED', `${describe(ectx)}: ${field} in the reply is not a whole number of minor units`, {
      details: { operation: ectx.operation, orderNo: ectx.orderNo, field },
    });
  }
  return Number(text);
}

function toResult(body: PayoutResponse, requestId: string, currency: string, unit: PayoutAmountUnit, ectx: ErrorContext): PayoutResult {
  const minor = (value: string | number | undefined, cur: string | undefined, field: string): number | null =>
    value === undefined || value === '' || cur === undefined ? null : payoutReplyMinor(value, cur, unit, field, ectx);
  return {
    raw: body,
    requestId,
    transactionId: orNull(body.transaction_id),
    status: orNull(body.status),
    shortReferenceId: orNull(body.short_reference_id),
    payerId: orNull(body.payer_id),
    amountBeneficiaryReceives: minor(body.amount_beneficiary_receives, body.payment_currency ?? currency, 'amount_beneficiary_receives'),
    amountPayerPays: minor(body.amount_payer_pays, body.source_currency ?? body.payment_currency ?? currency, 'amount_payer_pays'),
    feeAmount: minor(body.fee_amount, body.fee_currency, 'fee_amount'),
    feeCurrency: orNull(body.fee_currency),
    failureReason: orNull(body.failure_reason),
    failureType: orNull(body.failure_type),
    createdAt: toDate(body.created_at),
    lastUpdatedAt: toDate(body.last_updated_at),
  };
}

export function createPayoutsApi(ctx: ClientContext): PayoutsApi {
  return {
    async create(input, options) {
      const parsed = validate(payoutInputSchema, input);
      const requestId = parsed.request_id ?? randomUUID();
      const currency = parsed.payment_currency;
      const unsigned = {
        ...identity(ctx),
        ...parsed,
        request_id: requestId,
        payment_amount: toPayoutDigits(parsed.payment_amount, currency, ctx.payoutAmountUnit, 'payment_amount'),
        source_amount:
          parsed.source_amount === undefined
            ? undefined
            : toPayoutDigits(parsed.source_amount, parsed.source_currency ?? currency, ctx.payoutAmountUnit, 'source_amount'),
      };
      const wire = validate(payoutRequestSchema, withSignature(ctx, 'payout', unsigned));
      const ectx: ErrorContext = { operation: 'payout', orderNo: `request ${requestId}` };
      const reply = await send(ctx.core, { operation: 'payout', fields: wire, orderNo: ectx.orderNo, timeoutMs: options?.timeoutMs });
      const body = parseJsonReply(payoutResponseSchema, reply, ectx);
      // The echo is checked before anything else is read, so a wrong echo (or, when replies must
      // be signed, a missing one) is a ProtocolError even on a refusal: a reply that fails its
      // check is never taken for a definite answer about money sent out.
      checkEcho(ctx, wire.encryption_data, body.encryption_data, ectx);
      if (body.return_status !== undefined) checkReturnStatus(body, ectx);
      if (body.request_id !== undefined && body.request_id !== requestId) {
        throw new ProtocolError('ERR_PROTOCOL_MALFORMED', `${describe(ectx)}: the reply is for another request_id`, { details: { operation: 'payout' } });
      }
      return toResult(body, requestId, currency, ctx.payoutAmountUnit, ectx);
    },
  };
}
