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
  it('adds the successful refunds of refunded orders, and asks only about those', async () => {
    const asked: unknown[] = [];
    const port = createGatewayPort(client((...args: unknown[]) => {
      asked.push(args[0]);
      return Promise.resolve({
        refunds: [
          { orderNo: 'A', refundStatus: '1', refundAmount: 200 },
          { orderNo: 'A', refundStatus: '1', refundAmount: 150 },
          { orderNo: 'A', refundStatus: '0', refundAmount: 999 },
          { orderNo: 'C', refundStatus: '1', refundAmount: 1000 },
        ],
      });
    }));
    const facts = await port.queryOrders(['A', 'B', 'C']);
    expect(asked).toEqual([{ refundOrders: ['A', 'C'] }]);
    expect(facts.get('A')?.refundedAmount).toBe(350);
    expect(facts.get('B')?.refundedAmount).toBeUndefined();
    expect(facts.get('C')?.refundedAmount).toBe(1000);
  });

  it('leaves the amount unknown when the refund search fails', async () => {
    const port = createGatewayPort(client(() => Promise.reject(new Error('down'))));
    const facts = await port.queryOrders(['A', 'B', 'C']);
    expect(facts.get('A')).toMatchObject({ outcome: 'partially_refunded' });
    expect(facts.get('A')?.refundedAmount).toBeUndefined();
  });
});
