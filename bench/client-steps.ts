/**
 * CPU per call of the gateway client's steps on the pay route's card payment (the request
 * bench/pay-steps.ts builds), in one process: `npx tsx bench/client-steps.ts [rounds=7] [calls=5000]`.
 * The synchronous steps run in a loop; `send` and `sendAuthorise` go through the request core
 * to a transport that answers the bench upstream's reply at once, so they time the client's own
 * work around a call (core, span and metrics, reply read and checked) without a socket. Each
 * step runs in turn, round after round, so the steps share the machine's load; the median of
 * the rounds is printed.
 */
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
import { silentLogger } from '../server/logging.js';
import { createKitMetrics } from '../server/observability/metrics.js';
import { stepsFixture, timeSteps } from './steps-fixture.js';

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 5000);

const { kit, order, req, cardBody } = await stepsFixture();
const kctx = kit.context;
const card = parsePayBody(cardBody);
if (!card.ok) throw new Error('the bench form does not parse');
const request = paymentRequest(kctx, order, payOrderData(order), deviceData(req, cardBody).data, card.body, 'en');
const mapped = mapPaymentRequest(request);

const SIGN_KEY = kctx.options.gateway.signKey;
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

await timeSteps(steps, asyncSteps, rounds, calls, 2);
await kit.close();
