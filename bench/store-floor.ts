/**
 * The store's part of notify, render and pay_direct, alone. notify's: a bare Express route (the baselines' form parser) that does
 * only what the notify route asks of the kit's store for a paid notification: read the order by
 * its number, then one transition to `paid` with the same patch and event (its data and dedupe key
 * as long as the engine's) through the store's compare-and-set, answering once it is on disk. No
 * signature, validation, state machine or engine: what is left between this route and the durable
 * baseline is the data model (an indexed read, an event through three indexes, the order's
 * update), and what is left between notify and this route is the kit's own work. render's: the
 * same for the hosted-page POST, which reads the order its pay token names and moves it
 * `created → pending` with the submission's data and dedupe key, one compare-and-set. pay_direct's:
 * the same submission, the gateway baseline's upstream call, then the answer's transition to `paid`.
 */
import { Agent } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { UrlTokens } from '../server/checkout/tokens.js';
import { SUBMITTED_KEY } from '../server/checkout/pay/submit.js';
import type { OrderStore, TransitionResult } from '../server/orders/store.js';
import type { Order } from '../server/orders/types.js';
import { upstreamCall } from './upstream-wire.js';

/** The notification fields the engine copies into its event, in its order. */
const EVENT_FIELDS = ['webhooks_type', 'order_no', 'transaction_id', 'order_status', 'payment_status', 'result_info'] as const;

export function storeFloorHandlers(store: OrderStore): RequestHandler[] {
  const notify: RequestHandler = async (req, res) => {
    const f = req.body as Record<string, string>;
    const order = await store.getByOrderNo(f.order_no ?? '');
    if (order === null) {
      res.status(404).end();
      return;
    }
    const data: Record<string, unknown> = {};
    for (const key of EVENT_FIELDS) data[key] = f[key];
    data.amount = order.amount;
    data.currency = order.currency;
    data.outcome = 'approved';
    data.transactionId = f.transaction_id;
    data.maskedCard = f.card;
    const [code, text] = (f.result_info ?? '').split(':');
    const result = await store.transition(
      order.id,
      order.version,
      { state: 'paid', transactionId: f.transaction_id ?? null, maskedCard: f.card ?? null, capturedAmount: order.amount, data: { resultCode: code, resultText: text } },
      // A key as long as the engine's (`notify:` and a SHA-256 in hex), unique per notification.
      { type: 'transition', source: 'notify', actor: 'gateway', fromState: order.state, toState: 'paid', dedupeKey: `notify:${(f.encryption_data ?? '').padEnd(64, '0')}`, data },
      undefined,
      order,
    );
    res.status(result.ok ? 200 : 409).set('Cache-Control', 'no-store').type('text/plain').send(result.ok ? 'OK' : 'conflict');
  };
  return [express.urlencoded({ extended: false }), notify];
}

/** The order the pay token names, or null after answering 404. */
async function payOrder(store: OrderStore, tokens: UrlTokens, req: Request, res: Response): Promise<Order | null> {
  const claim = tokens.verify(String(req.params.token ?? ''), 'pay');
  const order = claim === null ? null : await store.get(claim.orderId);
  if (order === null) res.status(404).end();
  return order;
}

/** The submission's compare-and-set, `created → pending`, with its data and dedupe key as the engine writes them. */
function submit(store: OrderStore, order: Order, method: 'hosted' | 'card'): Promise<TransitionResult> {
  const submittedAt = new Date().toISOString();
  // The event's data as the engine writes it for a submission (its fields, in its order).
  const data = { method, outcome: 'pending' };
  return store.transition(
    order.id,
    order.version,
    { state: 'pending', method, data: { submittedAt, method } },
    { type: 'transition', source: 'pay', actor: 'shopper', fromState: order.state, toState: 'pending', dedupeKey: SUBMITTED_KEY, data },
    undefined,
    order,
  );
}

/** The hosted-page POST's store work: the order its pay token names, then the submission. */
export function renderFloorHandlers(store: OrderStore, tokens: UrlTokens): RequestHandler[] {
  const render: RequestHandler = async (req, res) => {
    const order = await payOrder(store, tokens, req, res);
    if (order === null) return;
    const result = await submit(store, order, 'hosted');
    res.status(result.ok ? 200 : 409).set('Cache-Control', 'no-store').type('text/plain').send(result.ok ? 'OK' : 'conflict');
  };
  return [express.urlencoded({ extended: false }), render];
}

/**
 * The card pay POST's store work around its gateway call, on the gateway baseline's terms: the
 * order its pay token names, the submission, the same keep-alive POST to the bare upstream as the
 * gateway baseline's (the form as sent, its reply read as text), then the answer's compare-and-set
 * `pending → paid` from the submitted copy with the patch and event the engine writes for an
 * approved answer; 303. No card checks, request building, signing or XML reading.
 */
export function payDirectFloorHandlers(store: OrderStore, tokens: UrlTokens, upstreamUrl: string): RequestHandler[] {
  const agent = new Agent({ keepAlive: true });
  const upstream = new URL(upstreamUrl);
  const pay: RequestHandler = async (req, res) => {
    const order = await payOrder(store, tokens, req, res);
    if (order === null) return;
    const submitted = await submit(store, order, 'card');
    if (!submitted.ok) {
      res.status(409).end();
      return;
    }
    const reply = await upstreamCall(agent, upstream, new URLSearchParams(req.body as Record<string, string>).toString());
    const pending = submitted.order;
    const transactionId = /<transaction_id>([^<]*)</.exec(reply)?.[1] ?? null;
    const maskedCard = /<card>([^<]*)</.exec(reply)?.[1] ?? null;
    const riskAction = /<risk_action>([^<]*)</.exec(reply)?.[1] ?? null;
    const data = { outcome: 'approved', amount: pending.amount, currency: pending.currency, transactionId, maskedCard, resultCode: '0000', resultText: 'Success', riskAction, threedsResult: null };
    const result = await store.transition(
      pending.id,
      pending.version,
      { state: 'paid', transactionId, maskedCard, capturedAmount: pending.amount, data: { resultCode: '0000', resultText: 'Success' } },
      { type: 'transition', source: 'pay', actor: 'shopper', fromState: 'pending', toState: 'paid', dedupeKey: null, data },
      undefined,
      pending,
    );
    if (result.ok) res.status(303).set('Cache-Control', 'no-store').location(`/checkout/result/${String(req.params.token)}`).end();
    else res.status(409).end();
  };
  return [express.urlencoded({ extended: false }), pay];
}
