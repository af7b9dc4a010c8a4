/**
 * What every operation needs: the request core, the merchant identity, signing and the checks
 * shared by all replies (validation, echoed signature, return_status).
 */
import type { z } from 'zod';
import { GatewayError, ProtocolError, ValidationError, isKitError } from '../../errors.js';
import { maskCardNumbers } from '../../logging.js';
import { RETURN_STATUS } from '../codes.js';
import { describe, type CoreConfig, type ErrorContext } from '../core.js';
import { parseWireAmount } from '../money.js';
import { signaturesEqual, signMessage, type RecipeTable, type SignedOperation } from '../signing.js';
import { zodIssuesToFields } from '../schemas/common.js';
import { compiled } from '../../zod-compiled.js';

export interface ClientContext {
  core: CoreConfig;
  merchantId: string;
  accountId: string;
  signKey: string;
  /** The sign key first, then the extra keys accepted when verifying (rotation). */
  verifyKeys: readonly string[];
  recipes: RecipeTable;
  checkAmountComponents: boolean;
  batchConcurrency: number;
  /** Refuse replies that carry no signature (the strict reading); default false. */
  requireReplySignatures: boolean;
  /** The unit of payout `payment_amount` / `source_amount` digits. */
  payoutAmountUnit: PayoutAmountUnit;
}

/** Payout amounts are strings of digits; whether they count minor or major units is not published. */
export type PayoutAmountUnit = 'minor' | 'major';

/** Parses input with a schema; failures become a ValidationError naming the field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = compiled(schema).safeParse(input);
  if (!parsed.success) throw new ValidationError(zodIssuesToFields(parsed.error));
  return parsed.data;
}

export function identity(ctx: ClientContext): { merchant_id: string; account_id: string } {
  return { merchant_id: ctx.merchantId, account_id: ctx.accountId };
}

/** Adds `encryption_data` computed with the operation's recipe. */
export function withSignature<T extends Record<string, unknown>>(
  ctx: ClientContext,
  operation: SignedOperation,
  fields: T,
): T & { encryption_data: string } {
  return { ...fields, encryption_data: signMessage(operation, fields, ctx.signKey, ctx.recipes) };
}

/**
 * Batch, query, refund-search, payout, cancel-subscription and optimise replies echo the
 * request's signature when they carry one. A different echo is never trusted; a missing one is
 * accepted (the published query sample has none) unless `requireReplySignatures` is on.
 */
export function checkEcho(ctx: ClientContext, sent: string, echoed: string | undefined, ectx: ErrorContext): void {
  if (echoed === undefined || echoed === '') {
    if (!ctx.requireReplySignatures) return;
    throw new ProtocolError('ERR_PROTOCOL_SIGNATURE', `${describe(ectx)}: the reply does not echo encryption_data`, {
      details: { operation: ectx.operation, orderNo: ectx.orderNo },
    });
  }
  if (!signaturesEqual(sent, echoed)) {
    throw new ProtocolError('ERR_PROTOCOL_SIGNATURE', `${describe(ectx)}: the reply's encryption_data does not match the request`, {
      details: { operation: ectx.operation, orderNo: ectx.orderNo },
    });
  }
}

/** `return_status` other than "1" is a refusal of the whole request. */
export function checkReturnStatus(reply: { return_status?: string | undefined; return_message?: string | undefined }, ectx: ErrorContext): void {
  if (reply.return_status === RETURN_STATUS.ok) return;
  const message = maskCardNumbers(reply.return_message ?? '').slice(0, 300);
  throw new GatewayError('ERR_GATEWAY_STATUS', `${describe(ectx)}: gateway returned return_status ${reply.return_status ?? '(none)'}${message ? ` (${message})` : ''}`, {
    details: { operation: ectx.operation, orderNo: ectx.orderNo, returnStatus: reply.return_status, returnMessage: message },
  });
}

/** A reply amount to minor units; an unreadable one is the gateway's fault, not the caller's. */
export function replyMinor(value: string | number, currency: string, field: string, ectx: ErrorContext): number {
  try {
    return parseWireAmount(String(value), currency, field);
  } catch (error) {
    if (isKitError(error)) {
      throw new ProtocolError('ERR_PROTOCOL_MALFORMED', `${describe(ectx)}: unreadable ${field} in the reply`, {
        cause: error,
        details: { operation: ectx.operation, orderNo: ectx.orderNo, field },
      });
    }
    throw error;
  }
}

/** Keeps a ProtocolError's code but names the operation and order in its message. */
export function inContext(error: unknown, ectx: ErrorContext): unknown {
  if (error instanceof ProtocolError && !error.message.startsWith(describe(ectx))) {
    return new ProtocolError(error.code as 'ERR_PROTOCOL_MALFORMED' | 'ERR_PROTOCOL_SIGNATURE', `${describe(ectx)}: ${error.message}`, {
      cause: error,
      details: { operation: ectx.operation, orderNo: ectx.orderNo, ...error.details },
    });
  }
  return error;
}

/** Empty and absent both mean "not given". */
export const orNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);
