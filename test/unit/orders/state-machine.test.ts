import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PaymentOutcome } from '../../../server/gateway/codes.js';
import {
  AUTHORIZATION_RELEASED,
  OUTCOME_STATE,
  REQUESTED_CAPTURE,
  TRANSITIONS,
  decide,
  isFinal,
  mergeAttention,
  rankOf,
} from '../../../server/orders/state-machine.js';
import type { StateFact } from '../../../server/orders/state-machine.js';
import { ORDER_STATES } from '../../../server/orders/types.js';
import type { Order, OrderPatch, OrderState } from '../../../server/orders/types.js';

const AMOUNT = 1000;

function orderIn(state: OrderState, extra: Partial<Order> = {}): Order {
  const at = new Date('2030-01-01T00:00:00Z');
  return {
    id: 'o-1',
    orderNo: 'N-1',
    amount: AMOUNT,
    currency: 'EUR',
    state,
    version: 3,
    method: 'card',
    transactionId: null,
    maskedCard: null,
    capturedAmount: ['paid', 'partially_refunded', 'refunded', 'chargeback'].includes(state) ? AMOUNT : 0,
    refundedAmount: state === 'partially_refunded' ? 300 : state === 'refunded' ? AMOUNT : 0,
    attention: null,
    data: {},
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
}

/** What the store does with a patch (shallow data merge), for simulating sequences. */
function applied(order: Order, patch: OrderPatch): Order {
  const { data, ...fields } = patch;
  return { ...order, ...fields, data: { ...order.data, ...data }, version: order.version + 1 };
}

/** The outcome whose target state is `to`. */
const outcomeFor = (to: OrderState): PaymentOutcome =>
  (Object.entries(OUTCOME_STATE) as [PaymentOutcome, OrderState][]).find(([, s]) => s === to)![0];

const COLUMNS: PaymentOutcome[] = [
  'approved', 'authorized', 'pending', 'in_review', 'requires_action', 'declined',
  'failed', 'cancelled', 'expired', 'partially_refunded', 'refunded', 'chargeback',
];

/**
 * The expected decision for every (state, outcome) pair: T transition, N noop (same state or
 * late), R reject (illegal). Columns follow COLUMNS. `voided` is cancelled after an authorisation.
 */
const MATRIX: Record<OrderState | 'voided', string> = {
  //                  pd au pe ir ra de fa ca ex pr rf cb
  created:            'T  T  T  T  T  T  T  T  T  R  R  R',
  pending:            'T  T  N  T  T  T  T  T  T  R  R  R',
  requires_action:    'T  T  T  T  N  T  T  T  T  R  R  R',
  in_review:          'T  T  N  N  N  T  R  T  R  R  R  R',
  authorized:         'T  N  N  N  N  N  N  T  T  R  R  R',
  paid:               'N  N  N  N  N  N  N  N  N  T  T  T',
  partially_refunded: 'N  N  N  N  N  N  N  N  N  T  T  T',
  refunded:           'N  N  N  N  N  N  N  N  N  N  N  T',
  declined:           'T  T  N  N  N  N  N  N  N  R  R  R',
  failed:             'T  T  N  N  N  N  N  N  N  R  R  R',
  cancelled:          'T  T  N  N  N  N  N  N  N  R  R  R',
  expired:            'T  T  N  N  N  N  N  N  N  R  R  R',
  chargeback:         'N  N  N  N  N  N  N  N  N  N  N  N',
  voided:             'T  N  N  N  N  N  N  N  N  R  R  R',
};

const KIND = { T: 'transition', N: 'noop', R: 'reject' } as const;

function factFor(outcome: PaymentOutcome): StateFact {
  // A growing cumulative refund, so partially_refunded → partially_refunded is a real move.
  return outcome === 'partially_refunded' ? { outcome, refundedAmount: 500 } : { outcome };
}

describe('transition table', () => {
  it('covers every state and only names states', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...ORDER_STATES].sort());
    for (const targets of Object.values(TRANSITIONS)) for (const to of targets) expect(ORDER_STATES).toContain(to);
  });

  for (const from of ORDER_STATES) {
    for (const to of TRANSITIONS[from]) {
      it(`allows ${from} → ${to}`, () => {
        const decision = decide(orderIn(from), factFor(outcomeFor(to)));
        expect(decision).toMatchObject({ kind: 'transition', to, patch: { state: to } });
      });
    }
  }

  it('never lowers the rank along any row of the table', () => {
    for (const from of ORDER_STATES) {
      for (const to of TRANSITIONS[from]) {
        const order = orderIn(from);
        const decision = decide(order, factFor(outcomeFor(to)));
        if (decision.kind !== 'transition') throw new Error(`${from} → ${to} is not a transition`);
        expect(rankOf(applied(order, decision.patch))).toBeGreaterThanOrEqual(rankOf(order));
      }
    }
  });
});

describe('every (state, outcome) pair', () => {
  for (const [row, line] of Object.entries(MATRIX)) {
    const expected = line.split(/\s+/);
    COLUMNS.forEach((outcome, i) => {
      const kind = KIND[expected[i] as keyof typeof KIND];
      it(`${row} + ${outcome} → ${kind}`, () => {
        const order = row === 'voided' ? orderIn('cancelled', { data: { [AUTHORIZATION_RELEASED]: true } }) : orderIn(row as OrderState);
        const decision = decide(order, factFor(outcome));
        expect(decision.kind).toBe(kind);
        if (decision.kind !== 'transition') expect(decision.reason).toMatch(/\w/);
      });
    });
  }

  it('treats an unknown outcome as a noop in every state', () => {
    for (const state of ORDER_STATES) expect(decide(orderIn(state), { outcome: 'unknown' }).kind).toBe('noop');
  });
});

describe('named rules', () => {
  it('ignores late facts that would move an order backwards', () => {
    expect(decide(orderIn('paid'), { outcome: 'pending' })).toMatchObject({ kind: 'noop', reason: expect.stringMatching(/late/) });
    expect(decide(orderIn('declined'), { outcome: 'requires_action' }).kind).toBe('noop');
    expect(decide(orderIn('refunded'), { outcome: 'approved' }).kind).toBe('noop');
  });

  it('turns late money after an ended order into paid/authorized with attention', () => {
    for (const ended of ['cancelled', 'expired', 'declined', 'failed'] as const) {
      const paid = decide(orderIn(ended), { outcome: 'approved', transactionId: 'T-9' });
      expect(paid).toMatchObject({ kind: 'transition', to: 'paid', patch: { state: 'paid', transactionId: 'T-9', capturedAmount: AMOUNT } });
      if (paid.kind !== 'transition') throw new Error('unreachable');
      expect(paid.attention).toMatch(new RegExp(`after the order was ${ended}`));
      expect(paid.attention).toMatch(/refund/i);
      expect(paid.patch.attention).toBe(paid.attention);

      const held = decide(orderIn(ended), { outcome: 'authorized' });
      if (held.kind !== 'transition') throw new Error('expected a transition');
      expect(held.to).toBe('authorized');
      expect(held.attention).toMatch(/capture|void/i);
    }
  });

  it('keeps earlier attention reasons when adding one', () => {
    const decision = decide(orderIn('cancelled', { attention: 'Earlier reason' }), { outcome: 'approved' });
    if (decision.kind !== 'transition') throw new Error('expected a transition');
    expect(decision.patch.attention).toBe(`Earlier reason\n${decision.attention!}`);
    expect(mergeAttention('a\nb', 'b')).toBe('a\nb');
    expect(mergeAttention(null, 'b')).toBe('b');
  });

  it('marks a voided authorisation so a late authorisation cannot revive it, but late capture can', () => {
    const void_ = decide(orderIn('authorized'), { outcome: 'cancelled' });
    expect(void_).toMatchObject({ kind: 'transition', patch: { data: { [AUTHORIZATION_RELEASED]: true } } });
    if (void_.kind !== 'transition') throw new Error('unreachable');
    const voided = applied(orderIn('authorized'), void_.patch);
    expect(decide(voided, { outcome: 'authorized' }).kind).toBe('noop');
    expect(decide(voided, { outcome: 'approved' })).toMatchObject({ kind: 'transition', to: 'paid' });
    const lapsed = decide(orderIn('authorized'), { outcome: 'expired' });
    expect(lapsed).toMatchObject({ kind: 'transition', patch: { data: { [AUTHORIZATION_RELEASED]: true } } });
  });

  it('moves partially_refunded to itself only when the refunded amount grows', () => {
    const partly = orderIn('partially_refunded'); // 300 refunded
    expect(decide(partly, { outcome: 'partially_refunded', refundedAmount: 300 }).kind).toBe('noop');
    expect(decide(partly, { outcome: 'partially_refunded', refundedAmount: 200 }).kind).toBe('noop');
    expect(decide(partly, { outcome: 'partially_refunded' }).kind).toBe('noop');
    expect(decide(partly, { outcome: 'partially_refunded', refundedAmount: 700 })).toMatchObject({
      kind: 'transition',
      patch: { state: 'partially_refunded', refundedAmount: 700 },
    });
  });

  it('records refund amounts and refuses impossible ones', () => {
    expect(decide(orderIn('paid'), { outcome: 'partially_refunded', refundedAmount: 250 })).toMatchObject({ patch: { refundedAmount: 250 } });
    expect(decide(orderIn('paid'), { outcome: 'refunded' })).toMatchObject({ patch: { refundedAmount: AMOUNT } });
    expect(decide(orderIn('paid', { capturedAmount: 800 }), { outcome: 'refunded' })).toMatchObject({ patch: { refundedAmount: 800 } });
    expect(decide(orderIn('paid'), { outcome: 'refunded', refundedAmount: AMOUNT + 1 }).kind).toBe('reject');
    expect(decide(orderIn('paid'), { outcome: 'partially_refunded', refundedAmount: AMOUNT }).kind).toBe('reject');
  });

  it('flags chargebacks, including one after a full refund', () => {
    const cb = decide(orderIn('paid'), { outcome: 'chargeback' });
    expect(cb).toMatchObject({ kind: 'transition', to: 'chargeback', attention: expect.stringMatching(/dispute/) });
    const after = decide(orderIn('refunded'), { outcome: 'chargeback' });
    expect(after).toMatchObject({ kind: 'transition', attention: expect.stringMatching(/after a full refund/) });
  });

  it('keeps the masked card and transaction id the gateway reports', () => {
    const decision = decide(orderIn('pending'), { outcome: 'approved', transactionId: 'T-1', maskedCard: '424242******4242', capturedAmount: 900 });
    expect(decision).toMatchObject({ patch: { transactionId: 'T-1', maskedCard: '424242******4242', capturedAmount: 900 } });
  });

  it('writes a card only with its transaction: a move to another transaction whose card the fact does not name clears it', () => {
    const onA = orderIn('declined', { transactionId: 'T-A', maskedCard: '400000******0002' });
    expect(decide(onA, { outcome: 'approved', transactionId: 'T-B' })).toMatchObject({ kind: 'transition', patch: { transactionId: 'T-B', maskedCard: null } });
    expect(decide(onA, { outcome: 'approved', transactionId: 'T-B', maskedCard: '555555******4444' })).toMatchObject({ patch: { transactionId: 'T-B', maskedCard: '555555******4444' } });
    // The same transaction, or none named: the card stays.
    for (const transactionId of ['T-A', null, undefined]) {
      const decision = decide(onA, { outcome: 'approved', transactionId });
      expect(decision.kind === 'transition' && 'maskedCard' in decision.patch).toBe(false);
    }
    // An order without a transaction id keeps its card for the first id it learns.
    const noId = decide(orderIn('pending', { maskedCard: '424242******4242' }), { outcome: 'approved', transactionId: 'T-1' });
    expect(noId.kind === 'transition' && 'maskedCard' in noId.patch).toBe(false);
  });

  it('says which states are final for the result page', () => {
    const open = ORDER_STATES.filter((s) => !isFinal(s));
    expect(open.sort()).toEqual(['created', 'pending', 'requires_action']);
  });
});

describe('properties', () => {
  const outcomes: PaymentOutcome[] = [...COLUMNS, 'unknown'];
  const factArb = fc.record({
    outcome: fc.constantFrom(...outcomes),
    refundedAmount: fc.option(fc.constantFrom(100, 300, 500, 999, AMOUNT), { nil: undefined }),
    transactionId: fc.option(fc.constantFrom('T-1', 'T-2'), { nil: undefined }),
  });
  // Sequences with deliberate duplicates: each fact may be repeated right away.
  const sequenceArb = fc.array(fc.tuple(factArb, fc.boolean()), { maxLength: 40 });

  it('no sequence of facts moves an order backwards, and each step is a legal move', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORDER_STATES), sequenceArb, (start, steps) => {
        let order = orderIn(start);
        for (const [fact, repeat] of steps) {
          for (let n = 0; n < (repeat ? 2 : 1); n++) {
            const decision = decide(order, fact);
            if (decision.kind !== 'transition') continue;
            expect(TRANSITIONS[order.state]).toContain(decision.to);
            const next = applied(order, decision.patch);
            expect(rankOf(next)).toBeGreaterThanOrEqual(rankOf(order));
            order = next;
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('applying the same fact twice changes nothing the second time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORDER_STATES), fc.array(factArb, { maxLength: 10 }), factArb, (start, prefix, fact) => {
        let order = orderIn(start);
        for (const f of prefix) {
          const d = decide(order, f);
          if (d.kind === 'transition') order = applied(order, d.patch);
        }
        const first = decide(order, fact);
        if (first.kind === 'transition') order = applied(order, first.patch);
        const second = decide(order, fact);
        // A fact that moved the order is a noop the second time; one that did not, still does not.
        expect(second.kind).toBe(first.kind === 'transition' ? 'noop' : first.kind);
      }),
      { numRuns: 500 },
    );
  });
});

describe('partial capture (one capture per authorisation, the rest released)', () => {
  it('a capture reported with its amount records that amount', () => {
    expect(decide(orderIn('authorized'), { outcome: 'approved', capturedAmount: 600 })).toMatchObject({ kind: 'transition', to: 'paid', patch: { capturedAmount: 600 } });
  });

  it('a report without the amount (notification, query) records the capture requested on the authorised order', () => {
    const requested = orderIn('authorized', { data: { [REQUESTED_CAPTURE]: 600 } });
    expect(decide(requested, { outcome: 'approved' })).toMatchObject({ patch: { capturedAmount: 600 } });
    // Withdrawn (null) or nonsense: the whole amount, as for any capture the kit did not ask for.
    for (const value of [null, 0, -5, 1.5, AMOUNT + 1, '600']) {
      expect(decide(orderIn('authorized', { data: { [REQUESTED_CAPTURE]: value } }), { outcome: 'approved' })).toMatchObject({ patch: { capturedAmount: AMOUNT } });
    }
    // Only an authorisation is captured in part: a sale approved from pending is the whole amount.
    expect(decide(orderIn('pending', { data: { [REQUESTED_CAPTURE]: 600 } }), { outcome: 'approved' })).toMatchObject({ patch: { capturedAmount: AMOUNT } });
  });

  it('refuses a captured amount of zero or more than authorised', () => {
    expect(decide(orderIn('authorized'), { outcome: 'approved', capturedAmount: 0 }).kind).toBe('reject');
    expect(decide(orderIn('authorized'), { outcome: 'approved', capturedAmount: AMOUNT + 1 }).kind).toBe('reject');
  });

  it('refunds are bounded by what was captured, and refunding all of it is a full refund', () => {
    const paid = orderIn('paid', { capturedAmount: 600 });
    expect(decide(paid, { outcome: 'partially_refunded', refundedAmount: 200 })).toMatchObject({ kind: 'transition', patch: { refundedAmount: 200 } });
    expect(decide(paid, { outcome: 'partially_refunded', refundedAmount: 600 }).kind).toBe('reject');
    expect(decide(paid, { outcome: 'refunded', refundedAmount: 700 }).kind).toBe('reject');
    expect(decide(paid, { outcome: 'refunded' })).toMatchObject({ kind: 'transition', to: 'refunded', patch: { refundedAmount: 600 } });
  });
});
