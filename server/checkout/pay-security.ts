/**
 * The pay routes' CSRF instance, shared by the pay page and `payFormLocals` (a shop's own page
 * embedding the form), so both issue fields the POST route accepts.
 */
import type { KitContext } from './context.js';
import { createCsrf, type Csrf } from '../http/csrf.js';

const instances = new WeakMap<KitContext, Csrf>();

/** The cookie path is the mount point's public path, so it is right from any shop page. */
export function payCsrf(ctx: KitContext): Csrf {
  let csrf = instances.get(ctx);
  if (!csrf) {
    const path = new URL(ctx.options.publicUrl).pathname.replace(/\/+$/, '') || '/';
    csrf = createCsrf({ secrets: ctx.options.tokenSecrets, cookiePath: () => path });
    instances.set(ctx, csrf);
  }
  return csrf;
}
