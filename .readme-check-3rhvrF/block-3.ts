import { createGatewayClient } from 'acquiring-checkout-kit';

const client = createGatewayClient({
  baseUrl: 'http://127.0.0.1:4000', merchantId: '701001', accountId: '701001010',
  signKey: process.env.GATEWAY_SIGN_KEY ?? 'sandbox-sign-key-not-secret',
});
const item = { name: 'Tea pot', sku: 'TP-1', unitPrice: 2500, quantity: 1 };
const shopper = { website: 'shop.example', shopper_id: 'c-1', shopper_email: 'ada@example.com', shopper_ip: '203.0.113.9' };

// payments: direct card (a decline is a result, 3-D Secure answers with issuerUrl), APM, hosted page
const card = await client.payments.authorise({
  order_no: 'A-1', currency: 'EUR', amount: 2500, items: [item], ...shopper,
  card: '4242424242424242', expiration_month: '12', expiration_year: '2030', security_code: '123', open3d: 'do3DS',
});
const apm = await client.payments.authoriseApm({
  payment_method: 'IDEAL', order_no: 'A-2', currency: 'EUR', amount: 2500, items: [item], ...shopper,
  return_url: 'https://shop.example/checkout/return/TOKEN',
});
const hosted = client.payments.checkoutForm({
  order_no: 'A-3', currency: 'EUR', amount: 2500, items: [item], shopper_id: 'c-1', shopper_email: 'ada@example.com',
});
console.log(card.outcome, apm.issuerUrl, hosted.action);

// queries: transactions and refund search (reads are the only calls retried)
const query = await client.queries.transactions({ orders: ['A-1'] });
const refunds = await client.queries.refunds({ refundOrders: ['A-1'] });
console.log(query.orders[0]?.outcome, refunds.refunds.length);

// batch: capture, cancel, review, refund; any number of orders, one result per order in input order
const tx = { transaction_id: card.transactionId ?? '', order_no: 'A-1', currency: 'EUR', amount: 2500 };
const [refund] = await client.batch.refund([{ ...tx, refund_amount: 500 }]);
console.log(refund?.ok, refund?.message);

// payouts, subscriptions, optimise, updateOrders
const payout = await client.payouts.create({
  payment_amount: 10050, payment_currency: 'EUR', payment_method: 'SWIFT', reference: 'INV-7',
  beneficiary: { entity_type: 'COMPANY', company_name: 'Acme GmbH', bank_details: { iban: 'DE89370400440532013000' } },
});
const cancelled = await client.subscriptions.cancel({ recurring_id: 'REC-1', contract_name: 'monthly' });
const methods = await client.optimise({ amount: 2500, currency: 'EUR', shopper_email: 'ada@example.com', shopper_country: 'NL' });
const updated = await client.updateOrders([{ transaction_id: tx.transaction_id, status: 'success', ispass3d: '1' }]);
console.log(payout.status, cancelled.ok, methods.paymentMethods.length, updated.length);
