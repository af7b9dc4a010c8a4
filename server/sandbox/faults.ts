/**
 * Fault rules: make chosen requests slow, hang, fail, break or vanish so a merchant can see how
 * an integration behaves when the gateway misbehaves. Per account, per operation, optionally for
 * one order_no; for `times` requests or until cleared.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { issuesOf } from './wire/fields.js';

export const SANDBOX_OPERATIONS = [
  'authorise',
  'checkout',
  'retrievalTrans',
  'retrievalRefund',
  'capture',
  'cancel',
  'review',
  'refund',
  'payout',
  'cancelsubscription',
  'optimise',
  'updateOrders',
] as const;
export type SandboxOperation = (typeof SANDBOX_OPERATIONS)[number];

export const FAULT_KINDS = ['latency', 'timeout', 'http500', 'malformed', 'reset', 'dropNotification'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const faultRuleSchema = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  /** Which endpoint; `*` (the default) is every one. Ignored by dropNotification. */
  operation: z.enum([...SANDBOX_OPERATIONS, '*']).default('*'),
  merchantId: z.string().min(1).optional(),
  accountId: z.string().min(1).optional(),
  /** Only requests that carry this order_no (anywhere in a batch) or notifications for it. */
  orderNo: z.string().min(1).optional(),
  /** How many matching requests it applies to; absent means until cleared. */
  times: z.number().int().positive().optional(),
  /** Delay for `latency`, in milliseconds. */
  latencyMs: z.number().int().min(0).max(600_000).optional(),
});

export type FaultRule = z.input<typeof faultRuleSchema>;
export type StoredFaultRule = z.output<typeof faultRuleSchema> & { id: string; used: number };

export interface FaultTarget {
  merchantId: string;
  accountId: string;
  /** Every order_no the request names (one for authorise, several for a batch). */
  orderNos: readonly string[];
}

export class FaultRegistry {
  #rules: StoredFaultRule[] = [];
  #next = 1;

  /** Adds a rule; throws a ValidationError naming the field when the rule is malformed. */
  add(rule: FaultRule): StoredFaultRule {
    const parsed = faultRuleSchema.safeParse(rule);
    if (!parsed.success) throw new ValidationError(issuesOf(parsed.error));
    const stored = { ...parsed.data, id: `fault-${this.#next++}`, used: 0 };
    this.#rules.push(stored);
    return stored;
  }

  clear(): void {
    this.#rules = [];
  }

  list(): StoredFaultRule[] {
    return this.#rules.map((r) => ({ ...r }));
  }

  /**
   * The request faults that apply now (each use counts against `times`). The target may be given
   * as a function: it is worked out only when a rule needs it.
   */
  takeForRequest(operation: SandboxOperation, target: FaultTarget | (() => FaultTarget)): StoredFaultRule[] {
    return this.#take((rule) => rule.kind !== 'dropNotification' && (rule.operation === '*' || rule.operation === operation), target);
  }

  /** True when a notification for this order must be dropped (counts as one use). */
  takeDropNotification(target: FaultTarget): boolean {
    return this.#take((rule) => rule.kind === 'dropNotification', target).length > 0;
  }

  #take(kindMatches: (rule: StoredFaultRule) => boolean, targetOf: FaultTarget | (() => FaultTarget)): StoredFaultRule[] {
    const taken: StoredFaultRule[] = [];
    let target: FaultTarget | undefined;
    for (const rule of this.#rules) {
      if (!kindMatches(rule)) continue;
      target ??= typeof targetOf === 'function' ? targetOf() : targetOf;
      if (rule.merchantId !== undefined && rule.merchantId !== target.merchantId) continue;
      if (rule.accountId !== undefined && rule.accountId !== target.accountId) continue;
      if (rule.orderNo !== undefined && !target.orderNos.includes(rule.orderNo)) continue;
      rule.used += 1;
      taken.push({ ...rule });
    }
    // Rebuilt only when a rule is used up: a rule without `times` (one dropNotification for a
    // whole load test) applies to every request and would otherwise copy the list each time.
    if (taken.some((rule) => rule.times !== undefined && rule.used >= rule.times)) {
      this.#rules = this.#rules.filter((rule) => rule.times === undefined || rule.used < rule.times);
    }
    return taken;
  }
}
