/**
 * The control API under /_sandbox/ (JSON, loopback only): list state, resend a notification,
 * send it twice, send a batch in shuffled order, send one with a bad signature, raise a
 * chargeback or a dispute, send a crafted notification the transaction does not (yet) match,
 * add and clear faults, reset. The inspector's buttons post here as forms and are
 * sent back to the inspector.
 */
import { randomInt } from 'node:crypto';
import type { Express, Request, RequestHandler } from 'express';
import { ValidationError } from '../../errors.js';
import { readBody } from '../wire/body.js';
import type { SandboxContext } from '../context.js';
import type { FaultRule } from '../faults.js';
import { LOOPBACK_IPS } from '../options.js';
import { jsonReply, param, SandboxHttpError, sendReply, str, type Reply } from '../http.js';
import type { NotificationInput } from '../notifier.js';
import { notificationFields, notify, setStatus, signResult } from '../payments.js';
import type { SandboxNotification, SandboxTransaction } from '../types.js';
import { PAYMENT_STATUS } from '../wire/codes.js';

/** Fields a crafted notification may set. */
const NOTIFY_OVERRIDES = ['order_status', 'payment_status', 'result_info', 'amount', 'currency', 'webhooks_type', 'chargeback_reason'] as const;

export interface ControlHooks {
  /** Clears faults, timers and the ledger. */
  reset(): void;
}

type ControlHandler = (req: Request, fields: Record<string, unknown>) => unknown;

function wantsPage(req: Request): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

/** Loopback callers only, and no cross-site form posts from a page on another origin. */
function assertLocal(req: Request): void {
  const ip = req.socket.remoteAddress ?? '';
  if (!LOOPBACK_IPS.includes(ip)) throw new SandboxHttpError(403, 'I0016', 'ip', `the control API answers loopback callers only, not ${ip}`);
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let host = '';
    try {
      host = new URL(origin).host;
    } catch {
      // an unreadable Origin is treated as foreign
    }
    if (host !== req.headers.host) throw new SandboxHttpError(403, 'I0016', 'origin', 'cross-origin requests to the control API are refused');
  }
}

export function control(ctx: SandboxContext, handler: ControlHandler): RequestHandler {
  return async (req, res) => {
    let reply: Reply;
    try {
      assertLocal(req);
      const fields = req.method === 'GET' || req.method === 'DELETE' ? {} : (await readBody(req)).fields;
      const result = await handler(req, fields);
      reply = wantsPage(req) && req.method !== 'GET'
        ? { status: 303, contentType: 'text/plain; charset=utf-8', body: 'See Other', headers: { Location: `${req.baseUrl}/` } }
        : jsonReply(result ?? { ok: true });
    } catch (error) {
      if (error instanceof SandboxHttpError) reply = jsonReply({ code: error.code, source: error.source, message: error.message }, error.status);
      else if (error instanceof ValidationError) {
        reply = jsonReply({ code: 'I0001', source: error.field, message: error.message }, 400);
      } else {
        ctx.options.logger.error({ path: req.path, error }, 'sandbox control failed');
        reply = jsonReply({ code: 'I9999', source: '', message: 'sandbox internal error' }, 500);
      }
    }
    sendReply(res, reply);
  };
}

function deliveryOf(ctx: SandboxContext, id: string): SandboxNotification {
  const delivery = ctx.ledger.notificationRows.get(id);
  if (delivery === undefined) throw new SandboxHttpError(404, 'I0404', 'id', `no notification ${id}`);
  return delivery;
}

function copyOf(delivery: SandboxNotification, origin: string, fields = delivery.fields): NotificationInput {
  return {
    merchantId: delivery.merchantId, accountId: delivery.accountId, transactionId: delivery.transactionId, orderNo: delivery.orderNo,
    webhooksType: delivery.webhooksType, url: delivery.url, fields, origin,
  };
}

/** A signature that is well-formed but wrong: every hex digit shifted by one. */
export function spoilSignature(signature: string): string {
  const hex = '0123456789abcdef';
  const spoiled = Array.from(signature.toLowerCase(), (c) => hex[(hex.indexOf(c) + 1) % 16] ?? '0').join('');
  return spoiled.length === 64 ? spoiled : '0'.repeat(64);
}

function shuffled<T>(list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Form fields are strings; fault rules want numbers for times and latencyMs. */
function faultFromFields(fields: Record<string, unknown>): FaultRule {
  const rule: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === '' || value === undefined) continue;
    rule[key] = (key === 'times' || key === 'latencyMs') && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  }
  return rule as FaultRule;
}

export function mountControl(app: Express, ctx: SandboxContext, hooks: ControlHooks): void {
  const state = (): Record<string, unknown> => ({
    transactions: ctx.ledger.transactions(),
    refunds: ctx.ledger.refunds(),
    payouts: ctx.ledger.payouts(),
    subscriptions: ctx.ledger.subscriptions(),
    notifications: ctx.ledger.notifications(),
    updateOrders: ctx.ledger.updateOrders(),
    tokens: ctx.ledger.tokens.all(),
    faults: ctx.faults.list(),
  });
  app.get('/_sandbox/state', control(ctx, state));

  app.post('/_sandbox/notifications/:id/resend', control(ctx, async (req) => ({ sent: await ctx.notifier.sendInOrder([copyOf(deliveryOf(ctx, param(req, 'id')), 'resend')]) })));

  app.post('/_sandbox/notifications/:id/twice', control(ctx, async (req) => {
    const delivery = deliveryOf(ctx, param(req, 'id'));
    return { sent: await ctx.notifier.sendInOrder([copyOf(delivery, 'twice'), copyOf(delivery, 'twice')]) };
  }));

  app.post('/_sandbox/notifications/:id/bad-signature', control(ctx, async (req) => {
    const delivery = deliveryOf(ctx, param(req, 'id'));
    const fields = { ...delivery.fields, encryption_data: spoilSignature(delivery.fields.encryption_data ?? '') };
    return { sent: await ctx.notifier.sendInOrder([copyOf(delivery, 'bad-signature', fields)]) };
  }));

  app.post('/_sandbox/notifications/shuffle', control(ctx, async (_req, fields) => {
    const raw = fields.ids;
    const ids = Array.isArray(raw) ? raw.map(String) : str(fields, 'ids').split(',').filter((s) => s !== '');
    const transactionId = str(fields, 'transactionId');
    const chosen = ids.length > 0
      ? ids.map((id) => deliveryOf(ctx, id))
      : ctx.ledger.notifications().filter((n) => transactionId === '' || n.transactionId === transactionId);
    if (chosen.length === 0) throw new SandboxHttpError(400, 'I0001', 'ids', 'name notification ids or a transactionId that has notifications');
    return { sent: await ctx.notifier.sendInOrder(shuffled(chosen).map((d) => copyOf(d, 'shuffle'))) };
  }));

  const transactionOf = (req: Request): SandboxTransaction => {
    const tx = ctx.ledger.tx.get(param(req, 'id')) ?? ctx.ledger.transaction(param(req, 'id'));
    if (tx === undefined) throw new SandboxHttpError(404, 'I0404', 'id', `no transaction ${param(req, 'id')}`);
    return tx;
  };

  // A dispute is notified as `dispute`, a chargeback as `chargeback`; both end as a chargeback.
  for (const kind of ['chargeback', 'dispute'] as const) {
    app.post(`/_sandbox/transactions/:id/${kind}`, control(ctx, (req, fields) => {
      const tx = transactionOf(req);
      const reason = str(fields, 'reason') || (kind === 'dispute' ? 'Goods not received (sandbox)' : 'Fraudulent transaction (sandbox)');
      tx.chargebackReason = reason;
      setStatus(tx, { orderStatus: tx.orderStatus, paymentStatus: PAYMENT_STATUS.chargeback, resultInfo: tx.resultInfo }, `${kind}: ${reason}`);
      ctx.ledger.saveTransaction(tx);
      notify(ctx, tx, kind, { chargeback_reason: reason });
      return { transaction: tx };
    }));
  }

  // A notification that says something the transaction does not (yet): sent ahead of the
  // transaction's own state, with another amount, or of a kind the shop may not know. The
  // transaction is left as it is; the delivery is retried like any other.
  app.post('/_sandbox/transactions/:id/notify', control(ctx, (req, fields) => {
    const tx = transactionOf(req);
    const overrides: Record<string, string> = {};
    for (const name of NOTIFY_OVERRIDES) {
      const value = fields[name];
      if (typeof value === 'string' && value !== '') overrides[name] = value;
    }
    const type = overrides.webhooks_type ?? 'payment';
    const body: Record<string, string> = { ...notificationFields(ctx, tx, 'payment'), ...overrides, webhooks_type: type };
    body.encryption_data = signResult(ctx, body);
    const sent = ctx.notifier.enqueue({
      merchantId: tx.merchantId, accountId: tx.accountId, transactionId: tx.transactionId, orderNo: tx.orderNo,
      webhooksType: type, url: str(fields, 'url') || tx.notifyUrl, fields: body, origin: 'crafted',
    });
    return { sent };
  }));

  // The interface has no operation to delete a stored-card token: this stands in for the
  // gateway's own removal, so a removed token can be shown to be declined.
  const removeToken = control(ctx, (req) => {
    const token = ctx.ledger.tokens.get(param(req, 'id'));
    if (token === undefined) throw new SandboxHttpError(404, 'I0404', 'id', 'no such token');
    token.removedAt ??= new Date().toISOString();
    ctx.ledger.tokens.put(token.tokenId, token);
    return { token: { tokenId: token.tokenId, removedAt: token.removedAt } };
  });
  app.delete('/_sandbox/tokens/:id', removeToken);
  app.post('/_sandbox/tokens/:id/remove', removeToken);

  app.post('/_sandbox/faults', control(ctx, (_req, fields) => ({ fault: ctx.faults.add(faultFromFields(fields)) })));
  app.get('/_sandbox/faults', control(ctx, () => ({ faults: ctx.faults.list() })));
  const clear = control(ctx, () => {
    ctx.faults.clear();
    return { faults: [] };
  });
  app.delete('/_sandbox/faults', clear);
  app.post('/_sandbox/faults/clear', clear);

  app.post('/_sandbox/reset', control(ctx, () => {
    hooks.reset();
    return { reset: true };
  }));
}
