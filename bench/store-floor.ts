/**
 * The store's part of notify and of render, alone. notify's: a bare Express route (the baselines' form parser) that does
 * only what the notify route asks of the kit's store for a paid notification: read the order by
 * its number, then one transition to `paid` with the same patch and event (its data and dedupe key
 * as long as the engine's) through the store's compare-and-set, answering once it is on disk. No
 * signature, validation, state machine or engine: what is left between this route and the durable
 * baseline is the data model (an indexed read, an event through three indexes, the order's
 * update), and what is left between notify and this route is the kit's own work. render's: the
 * same for the hosted-page POST, which reads the order its pay token names and moves it
 * `created → pending` with the submission's data and dedupe key, one compare-and-set.
 */
import express, { type RequestHandler } from 'express';
import type { UrlTokens } from '../server/checkout/tokens.js';
import { SUBMITTED_KEY } from '../server/checkout/pay/submit.js';
import type { OrderStore } from '../server/orders/store.js';

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

/** The hosted-page POST's store work: the order its pay token names, then the submission. */
export function renderFloorHandlers(store: OrderStore, tokens: UrlTokens): RequestHandler[] {
  const render: RequestHandler = async (req, res) => {
    const claim = tokens.verify(String(req.params.token ?? ''), 'pay');
    const order = claim === null ? null : await store.get(claim.orderId);
    if (order === null) {
      res.status(404).end();
      return;
    }
    const submittedAt = new Date().toISOString();
    // The event's data as the engine writes it for a submission (its fields, in its order).
    const data = { method: 'hosted', outcome: 'pending', amount: order.amount, currency: order.currency };
    const result = await store.transition(
      order.id,
      order.version,
      { state: 'pending', method: 'hosted', data: { submittedAt, method: 'hosted' } },
      { type: 'transition', source: 'pay', actor: 'shopper', fromState: order.state, toState: 'pending', dedupeKey: SUBMITTED_KEY, data },
      undefined,
      order,
    );
    res.status(result.ok ? 200 : 409).set('Cache-Control', 'no-store').type('text/plain').send(result.ok ? 'OK' : 'conflict');
  };
  return [express.urlencoded({ extended: false }), render];
}
