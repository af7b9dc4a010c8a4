/** What the reconcile engine reports after a stored change: a payment that reached a final state. */
import type { StoredChange } from '../orders/hooks.js';
import type { Order } from '../orders/types.js';
import { FINISHED_STATES, type KitObserver } from './observer.js';

export function reportChange(observer: KitObserver | undefined, order: Order | null, change: StoredChange | undefined): void {
  const to = change?.transition?.to;
  if (observer === undefined || order === null || to === undefined || !FINISHED_STATES.has(to)) return;
  const code = order.data.resultCode;
  observer.paymentFinished(order.method, to, typeof code === 'string' ? code : null, order.createdAt);
}
