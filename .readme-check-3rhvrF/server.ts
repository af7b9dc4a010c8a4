// server.ts
import express from 'express';
import { kit } from './kit.js';

const app = express();
app.use('/checkout', kit.router); // pay pages, 3-D Secure return, result page, notifications

app.post('/cart/checkout', async (_req, res) => {
  const { payUrl } = await kit.createPayment({
    orderNo: 'A-1001',
    amount: 2650, // integer minor units: 26.50 EUR
    currency: 'EUR',
    items: [
      { name: 'Blue mug', sku: 'MUG-1', unitPrice: 1250, quantity: 2 },
      { name: 'Gift box', sku: 'BOX', unitPrice: 150, quantity: 1 },
    ],
    shopper: { id: 'customer-42', email: 'ada@example.com' },
    billing: { country: 'NL', city: 'Amsterdam', address: 'Keizersgracht 1', postalCode: '1015 CJ' },
  });
  res.redirect(303, payUrl); // the kit's pay page: card, APM or hosted page
});

const server = app.listen(3000);
process.once('SIGTERM', () => {
  server.close();
  void kit.close();
});
