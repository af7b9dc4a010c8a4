/**
 * `X-Content-Type-Options: nosniff` on every answer of a router: browsers then never run a
 * text/plain or JSON answer as script or style, whatever it contains. Set once, first, so no
 * route (a redirect, a plain-text refusal, an error page) can go out without it.
 */
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/** Sets the header on `res` (for a router's own first handler). */
export function setNoSniff(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

export const noSniff: RequestHandler = (_req, res, next) => {
  setNoSniff(res);
  next();
};
