/**
 * The order page's event log as a timeline staff read at a glance: one sentence per event
 * ("Refunded 5.00 EUR by staff"), the raw event data kept behind a disclosure.
 */
import type { OrderEvent } from '../orders/types.js';
import { formatMoney, stateLabel } from './format.js';

const SOURCES: Record<string, string> = {
  pay: 'the payment answer',
  return: 'the shopper\'s return',
  cancel: 'the shopper\'s cancel',
  notify: 'a gateway notification',
  sweeper: 'the background check',
  admin: 'staff',
  query: 'a gateway query',
  api: 'the shop',
};

const ACTIONS: Record<string, string> = {
  capture: 'Capture',
  cancel: 'Cancel (void)',
  review_approve: 'Review approval',
  review_reject: 'Review rejection',
  refund: 'Refund',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function capitalised(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function by(event: OrderEvent): string {
  return event.actor !== null && event.actor !== '' ? ` by ${event.actor}` : '';
}

function adminSentence(event: OrderEvent, currency: string): string {
  const d = event.data;
  const action = text(d.action) ?? 'action';
  if (action === 'saved_card_remove') return `Saved card •••• ${text(d.last4) ?? ''} of the shopper removed${by(event)}`;
  if (action === 'sync') return `Synced with the gateway${by(event)}: ${stateLabel(text(d.state) ?? 'no change')}`;
  const amount = typeof d.refundAmount === 'number' ? formatMoney(d.refundAmount, currency) : undefined;
  const label = ACTIONS[action] ?? stateLabel(action);
  if (d.result === 'ok') {
    if (action === 'refund') return `Refunded ${amount ?? ''}${by(event)}`.replace(/ {2,}/g, ' ');
    return `${label} accepted by the gateway (sent${by(event)})`;
  }
  const what = action === 'refund' && amount !== undefined ? `Refund of ${amount}` : label;
  if (d.result === 'unknown') return `${what} sent${by(event)}: the gateway did not answer`;
  return `${what} refused by the gateway${text(d.message) ? `: ${text(d.message)}` : ''} (sent${by(event)})`;
}

/** One event as a sentence, in the order's currency. */
export function eventSentence(event: OrderEvent, currency: string): string {
  const source = SOURCES[event.source] ?? event.source;
  const reason = text(event.data.reason);
  switch (event.type) {
    case 'admin_action':
      return adminSentence(event, currency);
    case 'return_hint':
      return 'The shopper came back from the payment page';
    case 'cancel_hint':
      return 'The shopper cancelled on the payment page';
    case 'pay_error':
      return `The payment request got no answer (${text(event.data.error) ?? 'error'}); the background check settles it`;
    case 'mismatch':
      return `The gateway's answer did not match the order${reason ? `: ${reason}` : ''}`;
    case 'ignored': {
      // A repeat of what the order already shows (the gateway confirming a refund staff made,
      // say) is not a problem: say so, instead of "not applied" that reads like one.
      const already = reason !== undefined && /^already [a-z_]+$/.test(reason) ? reason.slice('already '.length) : undefined;
      if (already !== undefined) return `${capitalised(source)} confirmed the order is ${stateLabel(already)}`;
      return `A report from ${source} was not applied${reason ? `: ${reason}` : ''}`;
    }
    case 'rejected':
      return `A report from ${source} was not applied${reason ? `: ${reason}` : ''}`;
    case 'unconfirmed':
      return `A report from ${source} could not be confirmed with the gateway`;
    case 'hook_failed':
      return 'A shop hook failed; it is retried';
    case 'notification_rejected':
      return 'A notification was refused';
    default:
      break;
  }
  if (event.toState !== null && event.toState !== event.fromState) {
    const refunded = typeof event.data.refundedAmount === 'number' && (event.toState === 'refunded' || event.toState === 'partially_refunded');
    const head = refunded ? `Refunded ${formatMoney(event.data.refundedAmount as number, currency)} in total` : `Now ${stateLabel(event.toState)}`;
    return `${head}, from ${source}${event.actor !== null && event.source === 'admin' ? ` (${event.actor})` : ''}`;
  }
  return `${stateLabel(event.type)} from ${source}`;
}
