/** Shared pieces of the browser-facing pages: error handling, the shopper's language and the way back to the shop. */
import type { Request, RequestHandler } from 'express';
import { readBody } from '../wire/body.js';
import type { RequestInfo, SandboxContext } from '../context.js';
import { SandboxHttpError, sendReply, str, type Reply } from '../http.js';
import { returnFields } from '../payments.js';
import { shopperLocale, type Pages } from '../pages.js';
import type { SandboxTransaction } from '../types.js';
import { ORDER_STATUS } from '../wire/codes.js';
import { httpUrl } from '../wire/fields.js';

export type PageHandler = (req: Request, fields: Record<string, unknown>) => Reply | Promise<Reply>;

/**
 * A refusal the shopper can meet in normal use (a page that expired, a payment already done),
 * shown as the catalogue's sentence `key` in the shopper's language.
 */
export class PageRefusal extends SandboxHttpError {
  readonly key: string;
  constructor(status: number, code: string, source: string, message: string, key: string) {
    super(status, code, source, message);
    this.name = 'PageRefusal';
    this.key = key;
  }
}

/** The shopper's language for a page: the payment's `default_lang`, else the browser's. */
export function pageLocale(req: RequestInfo, tx?: SandboxTransaction): string {
  return shopperLocale(tx?.details.default_lang, req.get('accept-language'));
}

/** Runs a page handler: reads the body (POST), turns errors into a message page in the shopper's language. */
export function page(ctx: SandboxContext, pages: Pages, handler: PageHandler): RequestHandler {
  return async (req, res) => {
    let reply: Reply;
    try {
      const fields = req.method === 'POST' ? (await readBody(req)).fields : {};
      reply = await handler(req, fields);
    } catch (error) {
      const lang = pageLocale(req);
      if (error instanceof PageRefusal) {
        reply = pages.message({ title: { key: 'sandbox.refusedTitle' }, message: { key: error.key }, lang }, error.status);
      } else if (error instanceof SandboxHttpError) {
        // A request no shopper page sends (a bad field): the reason stays in English for the developer.
        reply = pages.message({ title: { key: 'sandbox.refusedTitle' }, message: { key: 'sandbox.refusedMessage' }, detail: error.message, lang }, error.status);
      } else {
        ctx.options.logger.error({ path: req.path, error }, 'sandbox page failed');
        reply = pages.message({ title: { key: 'sandbox.errorTitle' }, message: { key: 'sandbox.errorMessage' }, lang }, 500);
      }
    }
    sendReply(res, reply);
  };
}

/** An http(s) URL field of a browser form, '' when absent; anything else is refused. */
export function urlField(fields: Readonly<Record<string, unknown>>, name: string): string {
  const value = str(fields, name);
  if (value === '') return '';
  if (!httpUrl.safeParse(value).success) throw new SandboxHttpError(400, 'I0001', name, `${name} must be an http(s) URL`);
  return value;
}

/** The catalogue's sentence for where a payment stands after the shopper's decision. */
function outcomeKey(tx: SandboxTransaction): string {
  switch (tx.orderStatus) {
    case ORDER_STATUS.approved:
    case ORDER_STATUS.authorized:
      return 'sandbox.outcome.approved';
    case ORDER_STATUS.declined:
    case ORDER_STATUS.failed:
      return 'sandbox.outcome.declined';
    case ORDER_STATUS.cancelled:
      return 'sandbox.outcome.cancelled';
    default:
      return 'sandbox.outcome.pending';
  }
}

/** After a decision: POST the result to return_url (or cancel_url), or say where things stand, in the shopper's language. */
export function backToShop(ctx: SandboxContext, pages: Pages, req: RequestInfo, tx: SandboxTransaction, which: 'return' | 'cancel' = 'return'): Reply {
  const target = which === 'cancel' && tx.cancelUrl !== '' ? tx.cancelUrl : tx.returnUrl;
  const lang = pageLocale(req, tx);
  const summary = { key: outcomeKey(tx), vars: { orderNo: tx.orderNo } };
  if (target === '') {
    return pages.message({ title: { key: 'sandbox.finishedTitle' }, message: summary, note: { key: 'sandbox.noReturnAddress' }, detail: tx.resultInfo, lang });
  }
  return pages.autosubmit(target, returnFields(ctx, tx), { title: { key: 'sandbox.returningTitle' }, message: summary, lang });
}
