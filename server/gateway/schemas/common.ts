/**
 * Wire primitives shared by every schema family: values exactly as they travel (strings, with
 * the formats and length limits of the interface and its public documentation), plus the one
 * function that turns a zod error into `{ field, message }` entries.
 */
import { z } from 'zod';
import { BIRTH_DATE_RE, DATE_TIME_SPACE_RE, GATEWAY_TIMESTAMP_RE, ISO_DATE_RE, ISO_WITH_OFFSET_RE } from '../dates.js';

/** Free text with a length limit. */
export const text = (max: number): z.ZodString => z.string().max(max);

export const merchantId = z.string().min(1).max(7);
export const accountId = z.string().min(1).max(10);
export const orderNo = z.string().min(1).max(50);
export const transactionId = z.string().min(1).max(50);
/** 64 hex characters; upper case is accepted because one published sample uses it. */
export const signature = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters');

/** Decimal string, at most 15 characters: "10.00", "1000" (zero-decimal currencies), "1.234". */
export const wireAmount = z
  .string()
  .max(15)
  .regex(/^\d{1,15}(\.\d{1,4})?$/, 'must be a decimal amount like "10.00"');
export const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code');
export const country = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166 country code');
export const timestamp14 = z.string().regex(GATEWAY_TIMESTAMP_RE, 'must be 14 digits, yyyyMMddHHmmss');
export const isoDate = z.string().regex(ISO_DATE_RE, 'must be YYYY-MM-DD');
export const dateTimeSpace = z.string().regex(DATE_TIME_SPACE_RE, 'must be YYYY-MM-DD HH:MM:SS');
export const isoDateTimeOffset = z.string().regex(ISO_WITH_OFFSET_RE, 'must be an ISO 8601 date-time with offset');
export const birthDate = z.string().regex(BIRTH_DATE_RE, 'must be DD-MM-YYYY');
export const uuid = z.uuid();
export const url = z.string().max(2000).regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL');
export const email = z.string().max(100);
/** `<code>:<text>` (result_info, refund_message). */
export const codeText = z.string().max(1000);
/** A status code such as "1", "0", "3000". */
export const statusCode = z.string().max(20);

/**
 * Unix time in seconds (`checkout_time`): a number in a JSON body, its digits in a form-encoded
 * one. Both read as a number.
 */
export const unixSeconds = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^\d{1,12}$/, 'must be Unix time in seconds').transform(Number),
]);

/** Responses may carry a field empty where a request would leave it out. */
export const orEmpty = <T extends z.ZodType<string>>(schema: T): z.ZodUnion<[T, z.ZodLiteral<''>]> =>
  z.union([schema, z.literal('')]);

/** A JSON number or its decimal string form (the gateway is not consistent). */
export const looseNumber = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a number')]);

/** The `{ code, source, message }` body of a 4xx answer. */
export const gatewayErrorBodySchema = z.object({
  code: z.string().min(1).max(20),
  source: z.string().max(200).optional(),
  message: z.string().max(2000).optional(),
});
export type GatewayErrorBody = z.infer<typeof gatewayErrorBodySchema>;

/** The fields every batch, query and refund-search reply starts with. */
export const replyEnvelope = {
  merchant_id: z.string().optional(),
  account_id: z.string().optional(),
  return_status: statusCode,
  return_message: z.string().max(1000).optional(),
  encryption_data: z.string().optional(),
};

/** The identity every request carries. */
export const requestIdentity = {
  merchant_id: merchantId,
  account_id: accountId,
  encryption_data: signature,
};

export interface FieldIssue {
  field: string;
  message: string;
}

function pathToField(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(input)' : out;
}

/**
 * Turns a zod error into `{ field, message }` entries with dotted paths (array indexes in
 * brackets: `cart_items[0].basic_item_data.name`). Messages never quote the offending value, so
 * card data cannot leak through a validation error.
 */
export function zodIssuesToFields(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ field: pathToField([...issue.path, key]), message: 'is not a known field' });
      continue;
    }
    out.push({ field: pathToField(issue.path), message: issue.message });
  }
  return out;
}
