/**
 * The engine's view of the gateway: the query says a payment was refunded but not how much; the
 * port adds the cumulative amount from the refund search, and leaves it unknown when that fails.
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

  it('leaves the amount unknown when the refund search fails', async () => {
    const port = createGatewayPort(client(() => Promise.reject(new Error('down'))));
    const facts = await port.queryOrders(['A', 'B', 'C']);
    expect(facts.get('A')).toMatchObject({ outcome: 'partially_refunded' });
    expect(facts.get('A')?.refunds).toBeUndefined();
  });
});
