/**
 * The load scenario's end-state rule: the loss that matters is money the gateway took for an
 * order the shop does not show as paid; an order a shopper left before paying is not one.
 */
import { expect, test } from 'vitest';
import { PAYMENT_STATUS } from '../../server/gateway/codes.js';
import type { Order, OrderState } from '../../server/orders/types.js';
import type { SandboxLedger, SandboxTransaction } from '../../server/sandbox/index.js';
import { unpaidMoney } from './support/ledger.js';

const order = (orderNo: string, state: OrderState): Order => ({ orderNo, state }) as Order;
const tx = (orderNo: string, paymentStatus: string): SandboxTransaction => ({ orderNo, paymentStatus }) as SandboxTransaction;
const ledgerOf = (txs: SandboxTransaction[]): SandboxLedger => ({ transactions: () => txs }) as unknown as SandboxLedger;

test('a captured or authorised payment whose order is not paid, or missing, is reported', () => {
  const orders = [order('A', 'created'), order('B', 'requires_action'), order('C', 'declined')];
  const ledger = ledgerOf([tx('A', PAYMENT_STATUS.completed), tx('B', PAYMENT_STATUS.authorized), tx('C', PAYMENT_STATUS.completed), tx('D', PAYMENT_STATUS.completed)]);
  expect(unpaidMoney(orders, ledger, new Set(['A', 'B', 'C', 'D']))).toEqual([
    'A: gateway 3000, shop created',
    'B: gateway 2000, shop requires_action',
    'C: gateway 3000, shop declined',
    'D: gateway 3000, no order in the shop',
  ]);
});

test('abandoned checkouts and settled payments are not losses', () => {
  const orders = [
    order('never-paid', 'created'), // the shopper stopped before the pay step: no transaction
    order('challenge-left', 'requires_action'), // a challenge never finished: the gateway holds nothing
    order('paid', 'paid'),
    order('held', 'authorized'),
    order('refunded', 'refunded'),
    order('declined', 'declined'),
  ];
  const ledger = ledgerOf([
    tx('challenge-left', PAYMENT_STATUS.requiresAction),
    tx('paid', PAYMENT_STATUS.completed),
    tx('held', PAYMENT_STATUS.authorized),
    tx('refunded', PAYMENT_STATUS.refunded),
    tx('declined', PAYMENT_STATUS.declined),
    tx('someone-else', PAYMENT_STATUS.completed), // not one of this run's orders
  ]);
  expect(unpaidMoney(orders, ledger, new Set(orders.map((o) => o.orderNo)))).toEqual([]);
});
