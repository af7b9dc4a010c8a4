/**
 * Validation of the facts the engine accepts, and the card-free guarantee for event data.
 * Validation errors name the field and never quote the value, so a card number passed by
 * mistake cannot leak through an error.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { zodIssuesToFields } from '../gateway/schemas/common.js';
import { flatCopyNeedingNoRedaction, jsonNeedsNoRedaction, maskCardNumbers, redact } from '../logging.js';
import type { Logger } from '../logging.js';
import type { PaymentFact } from './engine-types.js';
import type { PaymentMethodKind } from './types.js';
import { AUTHORIZATION_RELEASED } from './state-machine.js';
import { compiled } from '../zod-compiled.js';

const OUTCOMES = [
  'approved', 'authorized', 'pending', 'in_review', 'requires_action', 'declined', 'failed', 'cancelled',
  'partially_refunded', 'refunded', 'chargeback', 'expired', 'unknown',
] as const;
const METHODS = ['card', 'apm', 'hosted'] as const satisfies readonly PaymentMethodKind[];
const SOURCES = ['pay', 'return', 'cancel', 'notify', 'sweeper', 'admin', 'api'] as const;

/** A masked card: at most 8 leading and 4 trailing digits around a run of mask characters. */
export const MASKED_CARD_RE = /^\d{0,8}[*xX]{2,}\d{0,4}$/;

const minor = z.int().nonnegative();

/** Keys of `order.data` only the engine writes: a fact's orderData may not set them. */
export const ENGINE_DATA_KEYS: readonly string[] = ['attentionAt', AUTHORIZATION_RELEASED];

/**
 * A plain JSON-like object, taken as is: z.record would parse and copy every key of it for no
 * gain (nothing narrows `unknown`), and the engine copies what it keeps through JSON anyway.
 */
export const jsonObjectSchema = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be an object',
);
const details = jsonObjectSchema;
const orderData = details.superRefine((value, ctx) => {
  for (const key of ENGINE_DATA_KEYS) {
    if (key in value) ctx.addIssue({ code: 'custom', path: [key], message: 'is kept by the reconcile engine' });
  }
});

const refundReport = z.object({
  id: z.string().min(1).max(100).optional(),
  referenceId: z.string().min(1).max(100).nullable().optional(),
  reference: z.string().min(1).max(100).nullable().optional(),
  amount: z.int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code').optional(),
  status: z.enum(['pending', 'succeeded', 'failed']),
});

const factSchema = z
  .object({
    orderId: z.string().min(1).max(100).optional(),
    orderNo: z.string().min(1).max(50).optional(),
    transactionId: z.string().min(1).max(50).nullable().optional(),
    source: z.enum(SOURCES),
    outcome: z.enum(OUTCOMES),
    amount: minor.optional(),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code').optional(),
    maskedCard: z
      .union([z.literal(''), z.string().max(30).regex(MASKED_CARD_RE, 'must be a masked card number')])
      .nullable()
      .optional()
      .transform((v) => (v === '' ? null : v)),
    refundedAmount: minor.optional(),
    refunds: z.array(refundReport).max(1000).optional(),
    listedRefunds: z.array(refundReport).max(1000).optional(),
    capturedAmount: minor.optional(),
    dedupeKey: z.string().min(1).max(200).optional(),
    actor: z.string().min(1).max(200).optional(),
    data: details.optional(),
    orderData: orderData.optional(),
    attention: z.string().trim().min(1).max(1000).transform(maskCardNumbers).optional(),
    confirm: z.boolean().optional(),
    method: z.enum(METHODS).optional(),
  })
  .refine((f) => f.orderId !== undefined || f.orderNo !== undefined || (f.transactionId ?? undefined) !== undefined, {
    path: ['orderId'],
    message: 'one of orderId, orderNo or transactionId is required',
  });

/** Parses a fact or throws a ValidationError naming the first bad field. */
export function parseFact(input: PaymentFact): PaymentFact {
  const parsed = compiled(factSchema).safeParse(input);
  if (!parsed.success) throw new ValidationError(zodIssuesToFields(parsed.error));
  return parsed.data;
}

/**
 * Returns `data` with anything that looks like card data removed. Callers should never pass
 * such data; if one does, it is dropped here and a warning is logged, so no event ever holds it.
 */
export function cardFree(data: Record<string, unknown> | undefined, logger: Logger): Record<string, unknown> {
  if (data === undefined) return {};
  const flat = flatCopyNeedingNoRedaction(data);
  if (flat !== null) return flat;
  const json = JSON.stringify(data);
  if (jsonNeedsNoRedaction(json)) return JSON.parse(json) as Record<string, unknown>;
  const clean = redact(JSON.parse(json) as unknown) as Record<string, unknown>;
  if (JSON.stringify(clean) !== json) {
    logger.warn({ fields: Object.keys(data) }, 'Card data removed from order event data');
  }
  return clean;
}
