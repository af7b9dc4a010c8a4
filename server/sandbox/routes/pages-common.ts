/** Shared pieces of the browser-facing pages: error handling and the way back to the shop. */
import type { Request, RequestHandler } from 'express';
import { readBody } from '../wire/body.js';
import type { SandboxContext } from '../context.js';
import { SandboxHttpError, sendReply, str, type Reply } from '../http.js';
import { returnFields } from '../payments.js';
import type { Pages } from '../pages.js';
import type { SandboxTransaction } from '../types.js';
import { httpUrl } from '../wire/fields.js';

export type PageHandler = (req: Request, fields: Record<string, unknown>) => Reply | Promise<Reply>;

/** Runs a page handler: reads the body (POST), turns errors into a message page. */
export function page(ctx: SandboxContext, pages: Pages, handler: PageHandler): RequestHandler {
  return async (req, res) => {
    let reply: Reply;
    try {
      const fields = req.method === 'POST' ? (await readBody(req)).fields : {};
      reply = await handler(req, fields);
    } catch (error) {
      if (error instanceof SandboxHttpError) {
        reply = pages.message('Request refused', error.message, error.status);
      } else {
        ctx.options.logger.error({ path: req.path, error }, 'sandbox page failed');
        reply = pages.message('Something went wrong', 'The sandbox could not show this page.', 500);
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

/** After a decision: POST the result to return_url (or cancel_url), or say where things stand. */
export function backToShop(ctx: SandboxContext, pages: Pages, tx: SandboxTransaction, which: 'return' | 'cancel' = 'return'): Reply {
  const target = which === 'cancel' && tx.cancelUrl !== '' ? tx.cancelUrl : tx.returnUrl;
  const summary = `Order ${tx.orderNo}: ${tx.resultInfo}`;
  if (target === '') return pages.message('Payment finished', `${summary}. The merchant gave no return address.`);
  return pages.autosubmit(target, returnFields(ctx, tx), { title: 'Returning to the shop', message: summary });
}
