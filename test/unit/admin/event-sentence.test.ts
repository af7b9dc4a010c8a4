import { describe, expect, it } from 'vitest';
import { eventSentence } from '../../../server/admin/event-sentence.js';
import type { OrderEvent } from '../../../server/orders/types.js';

function event(over: Partial<OrderEvent>): OrderEvent {
  return {
    id: 'e1', orderId: 'o1', seq: 1, type: 'transition', source: 'notify', fromState: null, toState: null,
    dedupeKey: null, actor: null, data: {}, createdAt: new Date(0), ...over,
  };
}

describe('event sentences', () => {
  it('a notification repeating what the order already shows reads as a confirmation, not a failure', () => {
    const text = eventSentence(event({ type: 'ignored', data: { reason: 'already partially_refunded' } }), 'EUR');
    expect(text).toBe('A gateway notification confirmed the order is partially refunded');
    expect(text).not.toMatch(/not applied/);
  });

  it('an ignored report for any other reason still says it was not applied, and why', () => {
    const reason = 'late fact: paid would move the order back from refunded';
    expect(eventSentence(event({ type: 'ignored', data: { reason } }), 'EUR')).toBe(`A report from a gateway notification was not applied: ${reason}`);
  });

  it('a rejected report says it was not applied even when its reason starts with "already"', () => {
    expect(eventSentence(event({ type: 'rejected', source: 'return', data: { reason: 'already paid' } }), 'EUR'))
      .toBe('A report from the shopper\'s return was not applied: already paid');
  });

  it('a staff refund names the amount in the order\'s currency and who made it', () => {
    const text = eventSentence(event({ type: 'admin_action', source: 'admin', actor: 'ada', data: { action: 'refund', result: 'ok', refundAmount: 500 } }), 'EUR');
    expect(text).toMatch(/^Refunded 5\.00 EUR by ada$/);
  });
});
