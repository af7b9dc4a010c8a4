/**
 * GET|POST /return/:token and /cancel/:token — the shopper comes back from the issuer, the
 * APM page or the hosted page. The return is a hint, never proof: the handler records it, asks
 * the reconcile engine to confirm with the gateway, and answers 303 to the result page. It
 * needs no session (the return is a cross-site POST) and works whatever body parser the shop
 * mounted. Refreshing, going back and posting twice change nothing more.
 */
import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { maskCardNumbers } from '../logging.js';
import { isFinal } from '../orders/state-machine.js';
import type { KitContext } from './context.js';
import { readPostedBody } from '../http/posted-body.js';
import { createMessagePage } from './result.js';
import { cspMiddleware } from '../http/csp.js';
import { seeOtherNoStore } from '../http/no-store.js';

/**
 * The only posted fields kept (card-free, bounded): the rest of the body is ignored. Named as
 * the gateway posts them through the shopper's browser on its way back (the interface's names).
 */
const HINT_FIELDS = ['order_status', 'result_info', 'transaction_id'] as const;
const HINT_MAX_LENGTH = 100;
const RETURN_BODY_LIMIT = 64 * 1024;

type Purpose = 'return' | 'cancel';

function hintValue(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  // Printable ASCII only, bounded, and never anything that looks like a card number.
  return maskCardNumbers(value.replace(/[^\x20-\x7e]/g, '').slice(0, HINT_MAX_LENGTH));
}

async function hintFields(req: Request): Promise<Record<string, string>> {
  if (req.method !== 'POST') return {};
  let fields: Record<string, string>;
  try {
    ({ fields } = await readPostedBody(req, RETURN_BODY_LIMIT));
  } catch {
    return {}; // an unreadable body is only a missing hint
  }
  const kept: Record<string, string> = {};
  for (const name of HINT_FIELDS) {
    const value = hintValue(fields[name]);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** Adds the routes to `router` (a new one by default) and returns it. */
export function createReturnRoutes(ctx: KitContext, router: Router = Router()): Router {
  const message = createMessagePage(ctx.options.shopUrl);
  const csp = cspMiddleware();

  const handle = (purpose: Purpose) => async (req: Request<{ token: string }>, res: Response): Promise<void> => {
    const claim = ctx.tokens.verify(req.params.token, purpose);
    const order = claim === null ? null : await ctx.store.get(claim.orderId);
    if (order === null) {
      ctx.logger.warn({ purpose, path: 'return' }, 'checkout: return link with an invalid or expired token');
      message(req, res, 404, 'Link not valid', 'This link is not valid or has expired. Please return to the shop.');
      return;
    }
    const posted = await hintFields(req);
    // One hint per link and order state: a refresh or a double post adds nothing.
    const dedupeKey = createHash('sha256').update(`${purpose}\n${req.params.token}\n${order.state}`).digest('hex');
    try {
      await ctx.engine.record(order.id, {
        type: `${purpose}_hint`,
        source: purpose,
        actor: 'shopper',
        dedupeKey,
        data: { method: req.method, state: order.state, posted },
      });
    } catch (err) {
      ctx.logger.warn({ orderId: order.id, err }, 'checkout: could not record the return hint');
    }
    if (!isFinal(order.state)) {
      try {
        // A cancel hint never cancels locally: only the gateway's answer moves the order.
        const result = await ctx.engine.confirm(order.id, purpose, 'shopper');
        ctx.logger.info({ orderId: order.id, purpose, status: result.status, state: result.order?.state }, 'checkout: return confirmed with the gateway');
      } catch (err) {
        // Stays "confirming…": the sweeper or a notification settles it.
        ctx.logger.warn({ orderId: order.id, purpose, err }, 'checkout: could not confirm the return with the gateway');
      }
    }
    seeOtherNoStore(res, ctx.urls.result(order.id));
  };

  for (const purpose of ['return', 'cancel'] as const) {
    router.get(`/${purpose}/:token`, csp, handle(purpose));
    router.post(`/${purpose}/:token`, csp, handle(purpose));
  }
  return router;
}
