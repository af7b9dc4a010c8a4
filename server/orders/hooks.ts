/**
 * The shop's hooks as outbox entries. `owedHooks` turns one stored change into the calls it
 * owes, written by the store in the change's own transaction; `callHook` makes one such call
 * when the dispatcher (outbox-dispatcher.ts) delivers the entry, with the entry's id as `eventId`.
 */
import type { NewOutboxEntry, OrderStore, OutboxEntry } from './store.js';
import type { FactSource, Order, OrderState } from './types.js';
import { ORDER_STATES } from './types.js';

export interface TransitionInfo {
  from: OrderState;
  to: OrderState;
  source: FactSource;
  /**
   * The id of this hook call, the same on every delivery attempt: hooks are delivered at least
   * once, so a hook that must act once keeps the ids it has acted on (docs/orders.md).
   */
  eventId: string;
}

/** What `onAttention` receives besides the order and the new reasons. */
export interface AttentionInfo {
  source: FactSource;
  /** As `TransitionInfo.eventId`. */
  eventId: string;
}

export interface RefundInfo extends TransitionInfo {
  /** Minor units refunded: the sum of the order's succeeded refund rows. */
  refundedAmount: number;
}

export interface DisputeInfo extends TransitionInfo {
  reason: string | null;
}

export type OrderHook<I = TransitionInfo> = (order: Order, info: I) => void | Promise<void>;

/** What `onRecurringCharge` receives: one deduction of a subscription, paid or failed. */
export interface RecurringCharge {
  /** The order that started the subscription. */
  parent: Order;
  /** The deduction's own order (`parentId` is the parent's id; `data.recurringId`, `data.deductionTime`). */
  deduction: Order;
  status: 'paid' | 'failed';
  source: FactSource;
  /** As `TransitionInfo.eventId`. */
  eventId: string;
}

/**
 * The shop's reactions, each owed once per stored change and written to the outbox in the
 * change's transaction; the dispatcher calls them after the change is stored, at least once,
 * retrying a hook that throws, with the same `eventId` on every attempt.
 */
export interface OrderHooks {
  onTransition?: OrderHook;
  onPaid?: OrderHook;
  onAuthorized?: OrderHook;
  /** declined or failed. */
  onFailed?: OrderHook;
  onCancelled?: OrderHook;
  onExpired?: OrderHook;
  /**
   * The refunded total grew: partially_refunded (more refunded) or refunded, or refunds recorded
   * with another move (a chargeback the gateway reports after refunds whose notification was lost).
   */
  onRefunded?: OrderHook<RefundInfo>;
  onChargeback?: OrderHook;
  /**
   * The order moved to `chargeback` (a dispute or chargeback notification, or the gateway's
   * query); called after `onChargeback`. `reason` is the gateway's chargeback_reason
   * (`order.data.chargebackReason`), when it gave one.
   */
  onDispute?: OrderHook<DisputeInfo>;
  onInReview?: OrderHook;
  onRequiresAction?: OrderHook;
  /**
   * A subscription's deduction was charged (`paid`) or declined (`failed`): called once per
   * deduction instead of onTransition/onPaid/onFailed, which a deduction's order does not owe.
   */
  onRecurringCharge?: (charge: RecurringCharge) => void | Promise<void>;
  /** Whenever the order's attention text gains reasons; `reason` holds the new ones, one per line. */
  onAttention?: (order: Order, reason: string, info: AttentionInfo) => void | Promise<void>;
}

/** A change about to be stored by a compare-and-set: its hooks are owed if, and once, it wins. */
export interface StoredChange {
  source: FactSource;
  /** Present when the state moves. */
  transition?: { from: OrderState; to: OrderState } | undefined;
  /** Present when the attention text gains reasons: the new ones, one per line. */
  attention?: string | undefined;
  /** The order is a subscription's deduction (a child payment): paid and failed owe onRecurringCharge instead. */
  deduction?: boolean | undefined;
  /**
   * The change records refunds that grow the refunded total, and this is the order's state after
   * it: `onRefunded` is owed even when the state moves to one naming another hook, or stays.
   */
  refundedIn?: OrderState | undefined;
}

type StateHook = Exclude<keyof OrderHooks, 'onTransition' | 'onAttention' | 'onRefunded' | 'onDispute' | 'onRecurringCharge'>;

/** A deduction's outcome as `onRecurringCharge` reports it. */
const RECURRING_STATUS: Partial<Record<OrderState, 'paid' | 'failed'>> = { paid: 'paid', declined: 'failed', failed: 'failed' };

const STATE_HOOK: Partial<Record<OrderState, StateHook | 'onRefunded'>> = {
  paid: 'onPaid',
  authorized: 'onAuthorized',
  declined: 'onFailed',
  failed: 'onFailed',
  cancelled: 'onCancelled',
  expired: 'onExpired',
  partially_refunded: 'onRefunded',
  refunded: 'onRefunded',
  chargeback: 'onChargeback',
  in_review: 'onInReview',
  requires_action: 'onRequiresAction',
};

/** Hooks called after the state's own hook, with what the order's data says about the move. */
const FOLLOW_UP_HOOK: Partial<Record<OrderState, 'onDispute'>> = {
  chargeback: 'onDispute',
};

/** The hook named for a target state, if any (pending and created have none). */
export function hookForState(state: OrderState): StateHook | 'onRefunded' | undefined {
  return STATE_HOOK[state];
}

/** The calls `change` owes, in the order they are made: onTransition, the state's hook, its follow-up, onAttention. Only hooks the shop set. */
export function owedHooks(hooks: OrderHooks, change: StoredChange): NewOutboxEntry[] {
  const owed: NewOutboxEntry[] = [];
  const { source, transition, attention } = change;
  const recurring = change.deduction === true && transition ? RECURRING_STATUS[transition.to] : undefined;
  if (transition && recurring !== undefined) {
    if (hooks.onRecurringCharge) owed.push({ hook: 'onRecurringCharge', payload: { source, from: transition.from, to: transition.to, status: recurring } });
  } else if (transition) {
    const payload = { source, from: transition.from, to: transition.to };
    if (hooks.onTransition) owed.push({ hook: 'onTransition', payload });
    const name = hookForState(transition.to);
    // Refunds recorded with another move are told first: they happened before it.
    if (change.refundedIn !== undefined && name !== 'onRefunded' && hooks.onRefunded) owed.push({ hook: 'onRefunded', payload });
    if (name !== undefined && hooks[name]) owed.push({ hook: name, payload });
    const followUp = FOLLOW_UP_HOOK[transition.to];
    if (followUp !== undefined && hooks[followUp]) owed.push({ hook: followUp, payload });
  } else if (change.refundedIn !== undefined && hooks.onRefunded) {
    // Refunds recorded where the state stays (a chargeback's order): from and to are that state.
    owed.push({ hook: 'onRefunded', payload: { source, from: change.refundedIn, to: change.refundedIn } });
  }
  if (attention !== undefined && hooks.onAttention) owed.push({ hook: 'onAttention', payload: { source, reason: attention } });
  return owed;
}

const STATES = new Set<string>(ORDER_STATES);
const asState = (value: unknown): OrderState => {
  if (typeof value !== 'string' || !STATES.has(value)) throw new TypeError(`outbox entry holds an unknown state: ${String(value)}`);
  return value as OrderState;
};

/** The transition an entry records, for its `hook_failed` event. */
export function entryStates(entry: OutboxEntry): { from: OrderState | null; to: OrderState | null } {
  const { from, to } = entry.payload;
  return { from: typeof from === 'string' && STATES.has(from) ? (from as OrderState) : null, to: typeof to === 'string' && STATES.has(to) ? (to as OrderState) : null };
}

/**
 * Calls the hook `entry` names with a fresh copy of the order it stored. Resolves false when
 * the shop no longer has that hook (nothing to deliver); rejects with whatever the hook throws.
 */
export async function callHook(hooks: OrderHooks, entry: OutboxEntry, store?: Pick<OrderStore, 'get'>): Promise<boolean> {
  const order = structuredClone(entry.order);
  const source = entry.payload.source as FactSource;
  const eventId = entry.id;
  const name = entry.hook as keyof OrderHooks;
  if (name === 'onRecurringCharge') {
    const { onRecurringCharge } = hooks;
    if (!onRecurringCharge) return false;
    // The parent as it is now (its subscription's state may have moved since the deduction).
    const parent = order.parentId === undefined || store === undefined ? null : await store.get(order.parentId);
    if (parent === null) throw new Error(`the deduction's parent order ${order.parentId ?? '(none)'} is not in the store`);
    await onRecurringCharge({ parent, deduction: order, status: entry.payload.status === 'paid' ? 'paid' : 'failed', source, eventId });
    return true;
  }
  if (name === 'onAttention') {
    const { onAttention } = hooks;
    if (!onAttention) return false;
    await onAttention(order, String(entry.payload.reason), { source, eventId });
    return true;
  }
  const info: TransitionInfo = { from: asState(entry.payload.from), to: asState(entry.payload.to), source, eventId };
  if (name === 'onRefunded') {
    const { onRefunded } = hooks;
    if (!onRefunded) return false;
    await onRefunded(order, { ...info, refundedAmount: order.refundedAmount });
    return true;
  }
  if (name === 'onDispute') {
    const { onDispute } = hooks;
    if (!onDispute) return false;
    const reason = typeof order.data.chargebackReason === 'string' ? order.data.chargebackReason : null;
    await onDispute(order, { ...info, reason });
    return true;
  }
  const hook = hooks[name];
  if (!hook) return false;
  await hook(order, info);
  return true;
}
