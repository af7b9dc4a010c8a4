/**
 * Strict Content-Security-Policy with a per-request nonce, plus helmet's fixed security headers.
 *
 * Every checkout page runs under: default-src 'none'; script-src 'nonce-…'; style-src 'self';
 * img-src 'self' data:; form-action 'self' + the exact origins the page posts to;
 * frame-ancestors 'none'; base-uri 'none'. No inline script, style or handler is ever allowed,
 * so the views load everything from /assets with the nonce.
 *
 * Chrome and Firefox also check `form-action` against the redirects that follow a form
 * submission, so a page whose POST answers 303 to another origin must list that origin too.
 */
import { randomFillSync } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

export type FormActionTargets = (req: Request, res: Response) => readonly string[];

interface CspState {
  nonce: string;
  formActions: Set<string>;
}

const states = new WeakMap<ServerResponse, CspState>();

function stateOf(res: ServerResponse): CspState {
  const state = states.get(res);
  if (!state) throw new Error('cspMiddleware must run before the CSP header is computed');
  return state;
}

/**
 * The origin of an absolute http(s) URL, or null. Only origins reach the header, so a URL with
 * a path, query, quotes or semicolons can never inject a directive.
 */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
    return parsed.origin;
  } catch {
    return null;
  }
}

/**
 * The policy text. Built here rather than by helmet's CSP middleware because it is written on
 * every page, sometimes twice: only the nonce (base64) and origins (from `URL#origin`, which
 * cannot hold a quote, space, comma or semicolon) vary, so nothing can inject a directive.
 */
function policy(state: CspState): string {
  let formAction = "'self'";
  for (const origin of state.formActions) formAction += ` ${origin}`;
  return `default-src 'none';script-src 'nonce-${state.nonce}';style-src 'self';img-src 'self' data:;form-action ${formAction};frame-ancestors 'none';base-uri 'none'`;
}

/**
 * Helmet's fixed headers, as [name, value] pairs: its middlewares only set a value computed
 * once from their options, so the values are taken from them once (helmet stays their source)
 * and set here without three calls and a callback per request.
 */
function helmetHeaders(): readonly (readonly [string, string])[] {
  const headers = new Map<string, string>();
  const recorder = { setHeader: (name: string, value: string) => headers.set(name, value) } as unknown as ServerResponse;
  const ignore = (): void => undefined;
  for (const middleware of [helmet.referrerPolicy({ policy: 'no-referrer' }), helmet.xContentTypeOptions(), helmet.xFrameOptions({ action: 'deny' })]) {
    middleware(undefined as never, recorder, ignore);
  }
  return [...headers];
}

const FIXED_HEADERS = helmetHeaders();

/**
 * Nonces: 16 random bytes each, taken from a buffer refilled from the CSPRNG once per 256 nonces
 * (as crypto.randomUUID batches its entropy), never reused: one native call instead of one per page.
 */
const NONCE_BYTES = 16;
const nonceBuffer = Buffer.alloc(NONCE_BYTES * 256);
let nonceOffset = nonceBuffer.length;

function freshNonce(): string {
  if (nonceOffset === nonceBuffer.length) {
    randomFillSync(nonceBuffer);
    nonceOffset = 0;
  }
  const nonce = nonceBuffer.toString('base64', nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

function writeHeader(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', policy(stateOf(res)));
}

/**
 * Sets `res.locals.cspNonce` (fresh per request) and the CSP header. `extraFormActions` names
 * the URLs (or origins) the page may post or be redirected to besides 'self'; only their origins
 * are used, anything that is not an absolute http(s) URL is ignored.
 * Also sets Referrer-Policy no-referrer (pay URLs carry a token), nosniff and X-Frame-Options.
 */
export function cspMiddleware(extraFormActions?: FormActionTargets): RequestHandler {
  // Targets are usually the same few URLs on every request: their origins are parsed once each.
  const origins = new Map<string, string | null>();
  const originOnce = (target: string): string | null => {
    let origin = origins.get(target);
    if (origin === undefined) {
      origin = originOf(target);
      if (origins.size < 100) origins.set(target, origin);
    }
    return origin;
  };
  return (req, res, next) => {
    const nonce = freshNonce();
    const formActions = new Set<string>();
    for (const target of extraFormActions?.(req, res) ?? []) {
      const origin = originOnce(target);
      if (origin !== null) formActions.add(origin);
    }
    states.set(res, { nonce, formActions });
    res.locals.cspNonce = nonce;
    for (const [name, value] of FIXED_HEADERS) res.setHeader(name, value);
    writeHeader(res);
    next();
  };
}

/**
 * Widens `form-action` for this response once a target is known only after the gateway answered
 * (the 3-D Secure issuer, the hosted page). With `only`, the targets set so far are dropped, so
 * the page may post to 'self' and this origin alone. Rewrites the header with the same nonce.
 * Returns false (and changes nothing) for a URL that is not absolute http(s).
 */
export function allowFormAction(req: Request, res: Response, url: string, options: { only?: boolean } = {}): boolean {
  const origin = originOf(url);
  if (origin === null) return false;
  const { formActions } = stateOf(res);
  if (options.only === true) formActions.clear();
  formActions.add(origin);
  writeHeader(res);
  return true;
}

/** The nonce of this response (the same value as `res.locals.cspNonce`). */
export function cspNonce(res: Response): string {
  return stateOf(res).nonce;
}
