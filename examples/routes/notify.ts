/**
 * Needs: `npm install acquiring-checkout-kit express` in an ESM app (`"type": "module"`).
 *
 * Copy this: mounting the kit so the gateway's notifications reach it. The kit's router answers
 * `POST {publicUrl}/notify` itself: it reads the raw body, verifies `encryption_data` in
 * constant time, drops duplicates, confirms with the gateway and answers 2xx only once the fact
 * is stored. Two things are up to the shop:
 *
 * - mount the router at the path of `publicUrl`, before body parsers that would consume the
 *   body (the kit copes with a parsed body too, but the raw one is what was signed);
 * - behind a proxy, set Express's `trust proxy` so `req.ip` and `req.protocol` are the real ones.
 *
 * The notify URL is sent with every payment; nothing has to be registered with the gateway.
 */
import type { Express } from 'express';
import type { CheckoutKit } from 'acquiring-checkout-kit';

export interface MountOptions {
  /** Express's `trust proxy` setting, e.g. 1 behind one reverse proxy. Default: leave as is. */
  trustProxy?: boolean | number | string;
}

/** Mounts the kit's router (pay pages, return, result, notify) at the path of `publicUrl`. */
export function mountCheckout(app: Express, kit: Pick<CheckoutKit, 'router' | 'context'>, options: MountOptions = {}): string {
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  const path = new URL(kit.context.options.publicUrl).pathname.replace(/\/+$/, '') || '/';
  app.use(path, kit.router);
  return kit.context.urls.notify();
}
