/**
 * GET /assets/* — the browser assets in `public/` (device-data collector, auto-submit script,
 * CSS) with long cache headers and the right content types. Not under the pages' CSP: they are
 * static files, never HTML.
 */
import express, { Router } from 'express';
import { PUBLIC_DIR } from './render.js';

/** How long browsers and proxies may keep an asset (names are not fingerprinted, so not forever). */
export const ASSET_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** Adds the asset route to `router` (a new one by default) and returns it. */
export function createAssetRoutes(router: Router = Router()): Router {
  router.use(
    '/assets',
    express.static(PUBLIC_DIR, {
      maxAge: ASSET_MAX_AGE_MS,
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders(res) {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cross-Origin-Resource-Policy', 'same-site');
      },
    }),
  );
  return router;
}
