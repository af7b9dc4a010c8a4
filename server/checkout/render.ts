/**
 * Pug views of the checkout, compiled once (at router creation), and the locals every page
 * needs. Views and public assets ship at the package root (`views/`, `public/`; see
 * package-files.ts). Every page is rendered in the shopper's language: the order's `locale`
 * when the page is about an order, else the browser's Accept-Language, else the kit's `locale`.
 */
import { join } from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import { createCatalogue, type Catalogue, type Translator } from '../i18n/index.js';
import type { Order } from '../orders/types.js';
import { packageFile } from '../package-files.js';
import { compilePugViews, type View } from '../pug-views.js';
import { sendNoStore } from '../http/no-store.js';
import { cspNonce } from '../http/csp.js';
import { merged } from '../objects.js';

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

let fallbackCatalogue: Catalogue | undefined;
const catalogues = new WeakMap<Response, Catalogue>();
const translators = new WeakMap<Response, Translator>();

/** Makes the kit's catalogue (its `locale` and `translations` options) the one this response's pages use. */
export function useCatalogue(res: Response, catalogue: Catalogue): void {
  catalogues.set(res, catalogue);
}

/** `useCatalogue` for every request of a router. */
export function catalogueMiddleware(catalogue: Catalogue): RequestHandler {
  return (_req, res, next) => {
    catalogues.set(res, catalogue);
    next();
  };
}

function catalogueOf(res: Response): Catalogue {
  const known = catalogues.get(res);
  if (known !== undefined) return known;
  fallbackCatalogue ??= createCatalogue();
  return fallbackCatalogue;
}

/** The order's `locale` (set by createPayment), when it has one. */
export function orderLocale(order: Order): string | undefined {
  return typeof order.data.locale === 'string' ? order.data.locale : undefined;
}

/** Pages of this response speak the order's language (or the browser's when the order has none). */
export function useOrderLocale(req: Request, res: Response, order: Order): Translator {
  const catalogue = catalogueOf(res);
  const translator = catalogue.translator(catalogue.pick([orderLocale(order)], req.get('accept-language')));
  translators.set(res, translator);
  return translator;
}

/** The language of this response's pages. */
export function translatorOf(req: Request, res: Response): Translator {
  const chosen = translators.get(res);
  if (chosen !== undefined) return chosen;
  const catalogue = catalogueOf(res);
  return catalogue.translator(catalogue.pick([], req.get('accept-language')));
}

export interface PageLocals {
  /** URL prefix of the public assets, e.g. `/checkout/assets`. */
  assetsBase: string;
  cspNonce: string;
  lang: string;
  t: Translator['t'];
}

/**
 * Locals the layout needs. `assetsBase` is derived from the mount path, so it is right wherever
 * the shop mounts the kit's router. Requires `cspMiddleware` to have run for this response.
 */
export function pageLocals(req: Request, res: Response): PageLocals {
  const translator = translatorOf(req, res);
  return { assetsBase: `${req.baseUrl}/assets`, cspNonce: cspNonce(res), lang: translator.locale, t: translator.t };
}

/** Renders a checkout view as an HTML page that no cache keeps (it may carry tokens). */
export function sendPage(req: Request, res: Response, view: View, locals: Record<string, unknown>, status = 200): void {
  // merged(), not a spread: on Node 20, each key a spread adds costs about a microsecond.
  const html = view(merged(pageLocals(req, res), locals));
  sendNoStore(res, status, 'text/html; charset=utf-8', html);
}
