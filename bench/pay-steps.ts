/**
 * CPU per call of the pay route's in-process steps, on the bench's own order and form (what
 * bench/seed.ts sends): `npx tsx bench/pay-steps.ts [rounds=7] [calls=5000]`. Each step runs in
 * turn, round after round, so the steps share the machine's load; the median of the rounds is
 * printed. Drives the profile-led changes in docs/performance.md ("Where the time goes").
 */
import { parseDeviceFields, deviceData } from '../server/checkout/device.js';
import { payOrderData, paymentRequest } from '../server/checkout/pay/request.js';
import { parsePayBody } from '../server/checkout/pay/schema.js';
import { parseFact, cardFree } from '../server/orders/fact-schema.js';
import type { Order } from '../server/orders/types.js';
import { stepsFixture, timeSteps } from './steps-fixture.js';

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 5000);

const { kit, order, req, hostedBody, cardBody } = await stepsFixture();
const ctx = kit.context;
const stored: Order = order;
const data = payOrderData(stored);
const dev = deviceData(req, hostedBody).data;
const hosted = parsePayBody(hostedBody);
const card = parsePayBody(cardBody);
if (!hosted.ok || !card.ok) throw new Error('the bench form does not parse');

const steps: Record<string, () => unknown> = {
  payOrderData: () => payOrderData(stored),
  parseDeviceFields: () => parseDeviceFields(hostedBody),
  deviceData: () => deviceData(req, hostedBody),
  'parsePayBody hosted': () => parsePayBody(hostedBody),
  'parsePayBody card': () => parsePayBody(cardBody),
  'prepare hosted': () => ctx.client.payments.prepare(paymentRequest(ctx, stored, data, dev, hosted.body, 'en')),
  'prepare card': () => ctx.client.payments.prepare(paymentRequest(ctx, stored, data, dev, card.body, 'en')),
  'parseFact submit': () => parseFact({ orderId: stored.id, source: 'pay', actor: 'shopper', outcome: 'pending', dedupeKey: 'pay:submitted', data: { method: 'hosted' }, orderData: { submittedAt: new Date().toISOString(), method: 'hosted' }, method: 'hosted' }),
  cardFree: () => cardFree({ method: 'hosted' }, ctx.logger),
};

await timeSteps(steps, {}, rounds, calls);
await kit.close();
