/**
 * CPU per call of the gateway client's steps on the pay route's card payment (the request
 * bench/pay-steps.ts builds), in one process: `npx tsx bench/client-steps.ts [rounds=7] [calls=5000]`.
 * The synchronous steps run in a loop; `send` and `sendAuthorise` go through the request core
 * to a transport that answers the bench upstream's reply at once, so they time the client's own
 * work around a call (core, span and metrics, reply read and checked) without a socket. Each
 * step runs in turn, round after round, so the steps share the machine's load; the median of
 * the rounds is printed.
 */
import type { Request } from 'express';
import { deviceData } from '../server/checkout/device.js';
import { payOrderData, paymentRequest } from '../server/checkout/pay/request.js';
import { parsePayBody } from '../server/checkout/pay/schema.js';
import { send } from '../server/gateway/core.js';
import type { ClientContext } from '../server/gateway/operations/context.js';
import { createPaymentsApi, buildSigned, type SignedWire } from '../server/gateway/operations/payments.js';
import { directPaymentInputSchema } from '../server/gateway/operations/payment-inputs.js';
import { toAuthoriseResult } from '../server/gateway/operations/authorise-result.js';
import { mapPaymentRequest } from '../server/gateway/payment-request.js';
import { computeSignature, DEFAULT_RECIPES, recipeValues, signMessage } from '../server/gateway/signing.js';
import type { Transport } from '../server/gateway/transport.js';
import { encodeBody } from '../server/gateway/wire.js';
import { buildResponXml, parseAuthoriseXml } from '../server/gateway/xml.js';
import { createCheckoutKit } from '../server/kit.js';
import { silentLogger } from '../server/logging.js';
import { createKitMetrics } from '../server/observability/metrics.js';
import { createMemoryStore } from '../server/orders/stores/memory.js';
import { kitOptions } from './fixture.js';

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 5000);

const kit = createCheckoutKit({ ...kitOptions('http://127.0.0.1:1/checkout', 'http://127.0.0.1:2'), store: createMemoryStore() });
const { order } = await kit.createPayment({
  orderNo: 'STEP-0000001',
  amount: 2500,
  currency: 'USD',
  items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: 1250, quantity: 2 }],
  shopper: { id: 'shopper-1', email: 'shopper@example.test' },
  billing: { country: 'NL', city: 'Utrecht', address: 'Oudegracht 1', postalCode: '3511AA' },
});
const kctx = kit.context;
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
const cardBody = {
  method: 'card', _csrf: 'x', ...device, card: '4242424242424242', expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3),
  security_code: '737', first_name: 'Ada', last_name: 'Lovelace',
};
const card = parsePayBody(cardBody);
if (!card.ok) throw new Error('the bench form does not parse');
const request = paymentRequest(kctx, order, payOrderData(order), deviceData(req, cardBody).data, card.body, 'en');
const mapped = mapPaymentRequest(request);

const SIGN_KEY = kitOptions('', '').gateway.signKey;
const metrics = createKitMetrics();
/** Answers every request with the sandbox's approved reply for the bench's order, signed. */
function replyFor(wire: SignedWire): string {
  const fields = {
    merchant_id: wire.merchant_id as string, account_id: wire.account_id as string, order_no: wire.order_no, amount: wire.amount, currency: wire.currency,
    transaction_id: 'SBX20260131100000K7Q2ZD', order_status: '1', card: '424242******4242', result_info: '0000:Success',
    contract_name: '', recurring_id: '', recurring_deduction_period: '', recurring_deduction_time: '', note: '', token_id: '', connector: 'SANDBOX',
    threeds_result: '', risk_action: 'ACCEPT', risk_score: '10', risk_reasons: [{ name: 'card_bin', status: 'ACCEPT' }],
  };
  return buildResponXml({ ...fields, encryption_data: signMessage('authoriseResponse', fields, SIGN_KEY) });
}
let replyText = '';
const stub: Transport = {
  send: () => Promise.resolve({ status: 200, contentType: 'application/xml; charset=utf-8', text: replyText }),
  close() {},
};
const ctx: ClientContext = {
  core: { baseUrl: 'http://127.0.0.1:2', transport: stub, timeoutMs: 30_000, jsonContentType: 'application/x-www-form-urlencoded', logger: silentLogger, readRetries: { attempts: 3, baseDelayMs: 200 }, observer: metrics },
  merchantId: '701001', accountId: '701001010', signKey: SIGN_KEY, verifyKeys: [SIGN_KEY], recipes: DEFAULT_RECIPES,
  checkAmountComponents: false, batchConcurrency: 4, requireReplySignatures: false, payoutAmountUnit: 'major',
};
const payments = createPaymentsApi(ctx);
const prepared = payments.prepare(request);
if (prepared.kind !== 'card') throw new Error('not a card payment');
const wire = prepared.authorise.wire;
// As the transport hands it over: decoded from bytes, one flat string (a built one is a rope).
replyText = Buffer.from(replyFor(wire)).toString('utf8');
const parsedReply = parseAuthoriseXml(replyText);
const ectx = { operation: 'authorise' as const, orderNo: wire.order_no };

const steps: Record<string, () => unknown> = {
  mapPaymentRequest: () => mapPaymentRequest(request),
  'validate card': () => directPaymentInputSchema.safeParse(mapped.input),
  'buildSigned card': () => buildSigned(ctx, 'authorise', directPaymentInputSchema, mapped.input),
  'prepare card': () => payments.prepare(request),
  signMessage: () => signMessage('authorise', wire, SIGN_KEY),
  computeSignature: () => computeSignature(recipeValues(DEFAULT_RECIPES.authorise, wire), SIGN_KEY),
  encodeBody: () => encodeBody('authorise', wire),
  parseAuthoriseXml: () => parseAuthoriseXml(replyText),
  toAuthoriseResult: () => toAuthoriseResult(parsedReply, wire, ctx, ectx),
};
const asyncSteps: Record<string, () => Promise<unknown>> = {
  'send (stub transport)': () => send(ctx.core, { operation: 'authorise', fields: wire, orderNo: wire.order_no }),
  'sendAuthorise (stub)': () => payments.sendAuthorise(prepared.authorise),
};

const results = new Map<string, number[]>([...Object.keys(steps), ...Object.keys(asyncSteps)].map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, step] of Object.entries(steps)) {
    for (let i = 0; i < 200; i++) step();
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) step();
    const used = process.cpuUsage(start);
    results.get(name)?.push((used.user + used.system) / calls);
  }
  for (const [name, step] of Object.entries(asyncSteps)) {
    for (let i = 0; i < 200; i++) await step();
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await step();
    const used = process.cpuUsage(start);
    results.get(name)?.push((used.user + used.system) / calls);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
for (const [name, xs] of results) console.log(`${name.padEnd(22)} ${median(xs).toFixed(2).padStart(7)} µs/call  (min ${Math.min(...xs).toFixed(2)})`);
await kit.close();
