/**
 * The engine's view of the gateway: the query says a payment was refunded but not how much; the
 * port adds the refunds from the refund search, and fails the whole answer when that fails.
 */
import { describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import type { GatewayClient } from '../../../server/gateway/client.js';

function client(refunds: () => Promise<unknown>): Pick<GatewayClient, 'queries'> {
  const order = (orderNo: string, outcome: string) => ({ orderNo, transactionId: `T-${orderNo}`, outcome, amount: 1000, currency: 'EUR' });
  return {
    queries: {
      transactions: () => Promise.resolve({ orders: [order('A', 'partially_refunded'), order('B', 'approved'), order('C', 'refunded')] }),
      refunds,
    },
  } as unknown as Pick<GatewayClient, 'queries'>;
}

describe('createGatewayPort', () => {
  it('adds the successful refunds of refunded orders by reference, and asks only about those', async () => {
    const asked: unknown[] = [];
    const port = createGatewayPort(client((...args: unknown[]) => {
      asked.push(args[0]);
      return Promise.resolve({
        refunds: [
          { orderNo: 'A', refundStatus: '1', refundAmount: 200, refundReferenceId: 'TA-01', refundReference: 'R1', currency: 'EUR' },
          { orderNo: 'A', refundStatus: '1', refundAmount: 150, refundReferenceId: 'TA-02', refundReference: 'R2', currency: 'EUR' },
          // Listed twice by the search (several selection criteria): once in the ledger.
          { orderNo: 'A', refundStatus: '1', refundAmount: 150, refundReferenceId: 'TA-02', refundReference: 'R2', currency: 'EUR' },
          { orderNo: 'A', refundStatus: '0', refundAmount: 999, refundReferenceId: 'TA-03', refundReference: 'R3', currency: 'EUR' },
          { orderNo: 'C', refundStatus: '1', refundAmount: 1000, refundReferenceId: 'TC-01', refundReference: null, currency: 'EUR' },
        ],
      });
    }));
    const facts = await port.queryOrders(['A', 'B', 'C']);
    expect(asked).toEqual([{ refundOrders: ['A', 'C'] }]);
    expect(facts.get('A')?.refunds).toEqual([
      { referenceId: 'TA-01', reference: 'R1', amount: 200, currency: 'EUR', status: 'succeeded' },
      { referenceId: 'TA-02', reference: 'R2', amount: 150, currency: 'EUR', status: 'succeeded' },
    ]);
    expect(facts.get('B')?.refunds).toBeUndefined();
    expect(facts.get('C')?.refunds).toEqual([{ referenceId: 'TC-01', reference: null, amount: 1000, currency: 'EUR', status: 'succeeded' }]);
    // No bare total: the ledger derives it from the rows.
    expect(facts.get('A')?.refundedAmount).toBeUndefined();
  });

  it('searchRefunds answers every order asked about and rejects when the search fails', async () => {
    const ok = createGatewayPort(client(() => Promise.resolve({ refunds: [{ orderNo: 'A', refundStatus: '1', refundAmount: 5, refundReferenceId: 'TA-01', refundReference: null, currency: null }] })));
    const found = await ok.searchRefunds!(['A', 'B']);
    expect([...found.entries()]).toEqual([['A', [{ referenceId: 'TA-01', reference: null, amount: 5, status: 'succeeded' }]], ['B', []]]);
    const down = createGatewayPort(client(() => Promise.reject(new Error('down'))));
    await expect(down.searchRefunds!(['A'])).rejects.toThrow('down');
  });

  it('rejects when the refund search of refunded orders fails: unknown is not none', async () => {
    const port = createGatewayPort(client(() => Promise.reject(new Error('down'))));
    await expect(port.queryOrders(['A', 'B', 'C'])).rejects.toThrow('down');
  });

  it('of several attempts under one order number, takes the most advanced, and of two as advanced the later one', async () => {
    const attempt = (transactionId: string, outcome: string, date: string | null) => ({ orderNo: 'N', transactionId, outcome, amount: 1000, currency: 'EUR', transactionDate: date === null ? null : new Date(date) });
    const port = (orders: unknown[]) => createGatewayPort({ queries: { transactions: () => Promise.resolve({ orders }), refunds: () => Promise.resolve({ refunds: [] }) } } as unknown as Pick<GatewayClient, 'queries'>);
    // Declined first, then an authorisation voided: both "released", the void is the order's truth.
    expect((await port([attempt('T1', 'declined', '2026-01-01T10:00:00Z'), attempt('T2', 'cancelled', '2026-01-01T10:05:00Z')]).queryOrders(['N'])).get('N')).toMatchObject({ transactionId: 'T2', outcome: 'cancelled' });
    // Listed newest first: the dates decide, not the order of the list.
    expect((await port([attempt('T2', 'cancelled', '2026-01-01T10:05:00Z'), attempt('T1', 'declined', '2026-01-01T10:00:00Z')]).queryOrders(['N'])).get('N')).toMatchObject({ transactionId: 'T2' });
    // Without dates, the later listed.
    expect((await port([attempt('T1', 'declined', null), attempt('T2', 'cancelled', null)]).queryOrders(['N'])).get('N')).toMatchObject({ transactionId: 'T2' });
    // A paid attempt outranks a later declined one.
    expect((await port([attempt('T1', 'approved', '2026-01-01T10:00:00Z'), attempt('T2', 'declined', '2026-01-01T10:05:00Z')]).queryOrders(['N'])).get('N')).toMatchObject({ transactionId: 'T1', outcome: 'approved' });
  });
});
