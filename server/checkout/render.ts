/**
 * Pug views of the checkout, compiled once (at router creation), and the locals every page
 * needs. Views and public assets ship at the package root (`views/`, `public/`; see
 * package-files.ts).
 */
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { packageFile } from '../package-files.js';
import { compilePugViews, type View } from '../pug-views.js';
import { sendNoStore } from './no-store.js';
import { cspNonce } from './security/csp.js';

/** Absolute path of `views/checkout`. */
export const CHECKOUT_VIEWS_DIR = packageFile(join('views', 'checkout'));
/** Absolute path of `public/` (served at `{mount}/assets`). */
export const PUBLIC_DIR = packageFile('public');

export type { View };

/** The shopper-facing views, compiled together the first time any is asked for. */
const CHECKOUT_VIEWS = ['error', 'pay', 'redirect-post', 'result'] as const;
export type CheckoutViewName = (typeof CHECKOUT_VIEWS)[number];

/** `views/checkout/{name}.pug`, compiled once per process (see pug-views.ts). */
export function compileView(name: CheckoutViewName): View {
  return compilePugViews(CHECKOUT_VIEWS_DIR, CHECKOUT_VIEWS)[name];
}

export interface PageLocals {
  /** URL prefix of the public assets, e.g. `/checkout/assets`. */
  assetsBase: string;
  cspNonce: string;
  lang: string;
}

/**
 * Locals the layout needs. `assetsBase` is derived from the mount path, so it is right wherever
 * the shop mounts the kit's router. Requires `cspMiddleware` to have run for this response.
 */
export function pageLocals(req: Request, res: Response): PageLocals {
  return { assetsBase: `${req.baseUrl}/assets`, cspNonce: cspNonce(res), lang: 'en' };
}

/** Renders a checkout view as an HTML page that no cache keeps (it may carry tokens). */
export function sendPage(req: Request, res: Response, view: View, locals: Record<string, unknown>, status = 200): void {
  const html = view({ ...pageLocals(req, res), ...locals });
  sendNoStore(res, status, 'text/html; charset=utf-8', html);
}
