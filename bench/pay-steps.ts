/**
 * CPU per call of the pay route's in-process steps, on the bench's own order and form (what
 * bench/seed.ts sends): `npx tsx bench/pay-steps.ts [rounds=7] [calls=5000]`. Each step runs in
 * turn, round after round, so the steps share the machine's load; the median of the rounds is
 * printed. Drives the profile-led changes in docs/performance.md ("Where the time goes").
 */
import type { Request } from 'express';
import { parseDeviceFields, deviceData } from '../server/checkout/device.js';
import { payOrderData, paymentRequest } from '../server/checkout/pay/request.js';
import { parsePayBody } from '../server/checkout/pay/schema.js';
import { createCheckoutKit } from '../server/kit.js';
import { createMemoryStore } from '../server/orders/stores/memory.js';
import { parseFact, cardFree } from '../server/orders/fact-schema.js';
import type { Order } from '../server/orders/types.js';
import { kitOptions } from './fixture.js';

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 5000);

const kit = createCheckoutKit({ ...kitOptions('http://127.0.0.1:1/checkout', 'http://127.0.0.1:2'), store: createMemoryStore() });
const ctx = kit.context;
const { order } = await kit.createPayment({
  orderNo: 'STEP-0000001',
  amount: 2500,
  currency: 'USD',
  items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: 1250, quantity: 2 }],
  shopper: { id: 'shopper-1', email: 'shopper@example.test' },
  billing: { country: 'NL', city: 'Utrecht', address: 'Oudegracht 1', postalCode: '3511AA' },
});
const device = {
  os: 'Linux', browser: 'Chrome 126', browser_lang: 'en-GB', time_zone: '-60', resolution: '1920x1080', color_depth: '24',
  cookie_old: '', cookie_new: 'c0ffee00c0ffee00c0ffee00', device_fingerprint: 'a'.repeat(64), session_id: 's3ss10n1d', challenge_window_size: '05',
};
const headers: Record<string, string> = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
  accept: 'text/html',
};
const req = { ip: '::ffff:127.0.0.1', get: (name: string) => headers[name.toLowerCase()], headers } as unknown as Request;
const hostedBody = { method: 'hosted', _csrf: 'x', ...device };
const cardBody = {
  ...hostedBody, method: 'card', card: '4242424242424242', expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3),
  security_code: '737', first_name: 'Ada', last_name: 'Lovelace',
};
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

const results = new Map<string, number[]>(Object.keys(steps).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, step] of Object.entries(steps)) {
    for (let i = 0; i < 200; i++) step();
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) step();
    const used = process.cpuUsage(start);
    results.get(name)?.push((used.user + used.system) / calls);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
for (const [name, xs] of results) console.log(`${name.padEnd(22)} ${median(xs).toFixed(1).padStart(7)} µs/call  (min ${Math.min(...xs).toFixed(1)})`);
await kit.close();
