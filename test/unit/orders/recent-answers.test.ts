/** The gateway answers the engine reuses for a flooded order: one version, a short window, bounded memory. */
import { describe, expect, it } from 'vitest';
import type { GatewayOrderFact } from '../../../server/orders/engine-types.js';
import { createRecentAnswers, RECENT_ANSWER_LIMIT, RECENT_ANSWER_MS } from '../../../server/orders/recent-answers.js';

const answer = (orderNo: string): GatewayOrderFact => ({
  orderNo, transactionId: `T-${orderNo}`, outcome: 'partially_refunded', amount: 2500, currency: 'USD',
  refunds: [{ referenceId: `T-${orderNo}-01`, amount: 500, status: 'succeeded' }],
});

describe('recent gateway answers', () => {
  it('reuses an answer, refunds included, only for the version it was asked for and only within the window', () => {
    const answers = createRecentAnswers();
    const order = { id: 'o1', version: 3 };
    answers.keep(order, answer('N1'), 1_000);
    expect(answers.recent(order, 1_000 + RECENT_ANSWER_MS - 1)?.answer).toEqual(answer('N1'));
    expect(answers.recent(order, 1_000 + RECENT_ANSWER_MS)).toBeUndefined();
    // A clock set back does not make an answer young again.
    expect(answers.recent(order, 999)).toBeUndefined();
    // Another version (a write by any process) makes it stale, and it is dropped.
    expect(answers.recent({ id: 'o1', version: 4 }, 1_001)).toBeUndefined();
    expect(answers.size).toBe(0);
  });

  it('keeps "the gateway does not know the order" too', () => {
    const answers = createRecentAnswers();
    answers.keep({ id: 'o1', version: 0 }, null, 0);
    expect(answers.recent({ id: 'o1', version: 0 }, 1)).toEqual({ version: 0, askedAt: 0, answer: null });
  });

  it('drops an answer once the order was written, and keeps it when the version is the same', () => {
    const answers = createRecentAnswers();
    answers.keep({ id: 'o1', version: 1 }, answer('N1'), 0);
    answers.settled('o1', { version: 1 });
    expect(answers.size).toBe(1);
    answers.settled('o1', { version: 2 });
    expect(answers.size).toBe(0);
    answers.keep({ id: 'o1', version: 2 }, answer('N1'), 0);
    answers.settled('o1', null);
    expect(answers.size).toBe(0);
  });

  it('holds at most its limit under a flood over many orders, the oldest evicted first, and lets expired answers go', () => {
    const answers = createRecentAnswers(RECENT_ANSWER_MS, 100);
    for (let i = 0; i < 5_000; i++) answers.keep({ id: `o${String(i)}`, version: 0 }, answer(`N${String(i)}`), 10);
    expect(answers.size).toBe(100);
    expect(answers.recent({ id: 'o0', version: 0 }, 11)).toBeUndefined();
    expect(answers.recent({ id: 'o4999', version: 0 }, 11)?.answer?.orderNo).toBe('N4999');
    // One answer kept after the window: every expired one goes.
    answers.keep({ id: 'late', version: 0 }, answer('L'), 10 + RECENT_ANSWER_MS);
    expect(answers.size).toBe(1);
    expect(RECENT_ANSWER_LIMIT).toBeGreaterThan(0);
  });

  it('moves an answer asked again to the newest place', () => {
    const answers = createRecentAnswers(RECENT_ANSWER_MS, 2);
    answers.keep({ id: 'a', version: 0 }, answer('A'), 0);
    answers.keep({ id: 'b', version: 0 }, answer('B'), 1);
    answers.keep({ id: 'a', version: 0 }, answer('A'), 2);
    answers.keep({ id: 'c', version: 0 }, answer('C'), 3);
    expect(answers.recent({ id: 'b', version: 0 }, 4)).toBeUndefined();
    expect(answers.recent({ id: 'a', version: 0 }, 4)?.answer?.orderNo).toBe('A');
    expect(answers.recent({ id: 'c', version: 0 }, 4)?.answer?.orderNo).toBe('C');
  });
});
