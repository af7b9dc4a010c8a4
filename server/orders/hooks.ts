/**
 * Calls the shop's hooks for one stored change. A hook that throws is logged (redacted) and
 * recorded as a `hook_failed` event; it never undoes the change and never reaches the caller.
 */
import { redact } from '../logging.js';
import type { Logger } from '../logging.js';
import type { OrderHooks, TransitionInfo } from './engine-types.js';
import type { OrderStore } from './store.js';
import type { FactSource, Order, OrderState } from './types.js';

/** A change stored by the caller whose compare-and-set won: hooks are owed exactly once. */
export interface StoredChange {
  order: Order;
  source: FactSource;
  /** Present when the state moved. */
  transition?: { from: OrderState; to: OrderState };
  /** Present when the attention text gained reasons: the new ones, one per line. */
  attention?: string;
}

type StateHook = Exclude<keyof OrderHooks, 'onTransition' | 'onAttention' | 'onRefunded' | 'onDispute'>;

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

export async function runHooks(hooks: OrderHooks, change: StoredChange, store: OrderStore, logger: Logger): Promise<void> {
  const { order, source } = change;

  const guarded = async (name: keyof OrderHooks, call: () => void | Promise<void>): Promise<void> => {
    try {
      await call();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.error({ orderId: order.id, orderNo: order.orderNo, hook: name, err: redact(error) }, 'Order hook failed');
      try {
        await store.appendEvent(order.id, {
          type: 'hook_failed',
          source,
          fromState: change.transition?.from ?? null,
          toState: change.transition?.to ?? null,
          data: redact({ hook: name, error: message.slice(0, 500) }) as Record<string, unknown>,
        });
      } catch (recordError) {
        logger.error({ orderId: order.id, hook: name, err: redact(recordError) }, 'Could not record the hook failure');
      }
    }
  };

  // Each hook gets its own copy, so one hook mutating the order cannot mislead the next.
  const fresh = (): Order => structuredClone(order);

  if (change.transition) {
    const info: TransitionInfo = { ...change.transition, source };
    const { onTransition } = hooks;
    if (onTransition) await guarded('onTransition', () => onTransition(fresh(), info));
    const name = hookForState(info.to);
    if (name === 'onRefunded') {
      const { onRefunded } = hooks;
      if (onRefunded) await guarded(name, () => onRefunded(fresh(), { ...info, refundedAmount: order.refundedAmount }));
    } else if (name !== undefined) {
      const hook = hooks[name];
      if (hook) await guarded(name, () => hook(fresh(), info));
    }
    const { onDispute } = hooks;
    if (FOLLOW_UP_HOOK[info.to] === 'onDispute' && onDispute) {
      const reason = typeof order.data.chargebackReason === 'string' ? order.data.chargebackReason : null;
      await guarded('onDispute', () => onDispute(fresh(), { ...info, reason }));
    }
  }
  if (change.attention !== undefined) {
    const { onAttention } = hooks;
    const reason = change.attention;
    if (onAttention) await guarded('onAttention', () => onAttention(fresh(), reason));
  }
}
