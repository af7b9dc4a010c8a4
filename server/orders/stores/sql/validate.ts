/**
 * Input checks at the SQL adapters' edge: a bad value is refused with ERR_VALIDATION naming the
 * field before anything is written, so no row ever holds a fractional amount, an unknown state
 * or a full card number where only the masked card belongs.
 */
import { z } from 'zod';
import { ValidationError } from '../../../errors.js';
import { maskCardNumbers } from '../../../logging.js';
import { jsonObjectSchema } from '../../fact-schema.js';
import { ORDER_STATES } from '../../types.js';
import type { NewEvent, NewOrder, OrderPatch } from '../../types.js';
import type { EventPage, NewOutboxEntry, OutboxClaim, OutboxFailure, OutboxListQuery, SubscriptionListQuery } from '../../store.js';
import { compiled } from '../../../zod-compiled.js';

const minorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const jsonObject = jsonObjectSchema;
const state = z.enum(ORDER_STATES);
const method = z.enum(['card', 'apm', 'hosted']);
/** The gateway's masked card (424242******4242); anything that still reads as a card number is refused. */
const maskedCard = z
  .string()
  .max(64)
  .refine((v) => maskCardNumbers(v) === v, 'must be the masked card from the gateway, never a full card number');

const newOrderSchema = z.object({
  id: z.string().min(1),
  orderNo: z.string().min(1),
  amount: minorUnits,
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case ISO 4217 code'),
  state: state.optional(),
  method: method.nullable().optional(),
  data: jsonObject.optional(),
  createdAt: z.date().optional(),
  parentId: z.string().min(1).optional(),
});

const patchSchema = z.object({
  state: state.optional(),
  method: method.nullable().optional(),
  transactionId: z.string().min(1).nullable().optional(),
  maskedCard: maskedCard.nullable().optional(),
  capturedAmount: minorUnits.optional(),
  refundedAmount: minorUnits.optional(),
  attention: z.string().nullable().optional(),
  data: jsonObject.optional(),
});

const eventSchema = z.object({
  type: z.string().min(1),
  source: z.enum(['pay', 'return', 'cancel', 'notify', 'sweeper', 'admin', 'api']),
  fromState: state.nullable().optional(),
  toState: state.nullable().optional(),
  dedupeKey: z.string().min(1).nullable().optional(),
  actor: z.string().nullable().optional(),
  data: jsonObject.optional(),
});

function check(schema: z.ZodType, value: unknown, prefix: string): void {
  const result = compiled(schema).safeParse(value);
  if (result.success) return;
  // Messages never quote the value, so a refused card number cannot leak through the error.
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      field: [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.') || '(input)',
      message: issue.message,
    })),
  );
}

export function checkNewOrder(order: NewOrder): void {
  check(newOrderSchema, order, 'order');
}

export function checkPatch(patch: OrderPatch): void {
  check(patchSchema, patch, 'patch');
}

export function checkEvent(event: NewEvent): void {
  check(eventSchema, event, 'event');
}

// Built once: a zod schema costs far more to construct than to run.
const leaseSchema = z.object({ owner: z.string().min(1), ttlMs: z.number().int().min(0) });
const dueSchema = z.object({ limit: z.number().int().min(0), updatedBefore: z.date(), states: z.array(state) });
const listSchema = z.object({ limit: z.number().int().min(0), offset: z.number().int().min(0).optional(), states: z.array(state).optional() });

export function checkLease(owner: string, ttlMs: number): void {
  check(leaseSchema, { owner, ttlMs }, '');
}

export function checkDue(query: { limit: number; updatedBefore: Date; states: readonly string[] }): void {
  check(dueSchema, query, 'query');
}

const eventPageSchema = z.object({
  beforeSeq: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
  dedupeKey: z.string().min(1).optional(),
});

export function checkEventPage(page: EventPage): void {
  check(eventPageSchema, page, 'page');
}

export function checkList(query: { limit: number; offset?: number | undefined; states?: readonly string[] | undefined }): void {
  check(listSchema, query, 'query');
}

const outboxEntriesSchema = z.array(z.object({ hook: z.string().min(1).max(64), payload: jsonObject }));
const outboxClaimSchema = z.object({ owner: z.string().min(1), leaseMs: z.number().int().min(0), limit: z.number().int().min(0), orderId: z.string().min(1).optional() });
const outboxFailureSchema = z.object({ error: z.string(), retryInMs: z.number().int().min(0).nullable() });
const outboxListSchema = z.object({ limit: z.number().int().min(0), status: z.enum(['pending', 'dead']).optional(), orderId: z.string().optional() });

export function checkOutboxEntries(entries: readonly NewOutboxEntry[]): void {
  check(outboxEntriesSchema, entries, 'outbox');
}

export function checkOutboxClaim(claim: OutboxClaim): void {
  check(outboxClaimSchema, claim, 'claim');
}

export function checkOutboxFailure(failure: OutboxFailure): void {
  check(outboxFailureSchema, failure, 'failure');
}

export function checkOutboxList(query: OutboxListQuery): void {
  check(outboxListSchema, query, 'query');
}

const subscriptionListSchema = z.object({ limit: z.number().int().min(0).max(100_000), after: z.string().min(1).optional() });

export function checkSubscriptionList(query: SubscriptionListQuery): void {
  check(subscriptionListSchema, query, 'query');
}
