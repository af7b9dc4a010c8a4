/**
 * Checks a received request against the sandbox's own reading of the interface (wire/), the
 * caller's account and its signature. Failures become the gateway's error answers.
 */
import type { z } from 'zod';
import { findAccount, type SandboxContext } from './context.js';
import { badInput, SandboxHttpError, str } from './http.js';
import type { SandboxAccount } from './types.js';
import { ERROR_CODES } from './wire/codes.js';
import { issuesOf } from './wire/fields.js';
import { readDecimalAmount } from './wire/format.js';
import { verify, type SignedMessage } from './wire/signature.js';
import { compiled } from '../zod-compiled.js';

/** Parses with `schema`; the first issue becomes HTTP 400 naming the field. */
export function validate<S extends z.ZodType>(schema: S, fields: Readonly<Record<string, unknown>>): z.output<S> {
  const parsed = compiled(schema).safeParse(fields);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error);
  const first = issues[0] ?? { field: '(input)', message: 'is invalid' };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  throw badInput(first.field, `${first.field} ${first.message}${more}`);
}

/** The account named by merchant_id/account_id, verified against encryption_data. */
export function authenticate(ctx: SandboxContext, operation: SignedMessage, fields: Readonly<Record<string, unknown>>): SandboxAccount {
  const merchantId = str(fields, 'merchant_id');
  const accountId = str(fields, 'account_id');
  if (merchantId === '') throw badInput('merchant_id', 'merchant_id is required');
  if (accountId === '') throw badInput('account_id', 'account_id is required');
  const account = findAccount(ctx, merchantId, accountId);
  if (account === undefined) {
    throw new SandboxHttpError(404, ERROR_CODES.notFound, 'account_id', `no account ${accountId} for merchant ${merchantId} (record not found)`);
  }
  if (!verify(operation, fields, str(fields, 'encryption_data'), account.signKey, ctx.options.recipes)) {
    throw new SandboxHttpError(
      400,
      ERROR_CODES.badSignature,
      'encryption_data',
      `encryption_data does not match the ${operation} signature for account ${accountId}; check the signed fields, their order and the sign key`,
    );
  }
  return account;
}

/** Decimal wire amount to minor units, or HTTP 400 naming the field. */
export function amountOf(value: string, currency: string, field: string): number {
  const read = readDecimalAmount(value, currency);
  if (typeof read === 'string') throw badInput(field, `${field} ${read}`);
  return read;
}
