/**
 * The admin's pug views, compiled once when the router is created, and the one function that
 * renders a page with the locals every page needs. Views ship at the package root
 * (`views/admin`, `public/admin.css`; see package-files.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'express';
import { packageFile } from '../package-files.js';
import { compilePugViews, type View } from '../pug-views.js';
import type { Flash } from './flash.js';
import { errorParts, formatDateTime, formatMoney, stateLabel } from './format.js';

export const VIEW_NAMES = [
  'orders', 'order', 'batch', 'job', 'refunds', 'payouts', 'payout', 'subscriptions', 'subscription-list', 'notifications', 'error', 'login', 'password', 'dashboard', 'saved-cards',
] as const;
export type ViewName = (typeof VIEW_NAMES)[number];
export type Views = Record<ViewName, View>;

export const ADMIN_VIEWS_DIR = packageFile(join('views', 'admin'));
export const ADMIN_CSS_FILE = packageFile(join('public', 'admin.css'));

/** Every admin view, compiled once per process (see pug-views.ts). */
export function compileViews(): Views {
  return compilePugViews(ADMIN_VIEWS_DIR, VIEW_NAMES);
}

export function readAdminCss(): string {
  return readFileSync(ADMIN_CSS_FILE, 'utf8');
}

export const ADMIN_JOB_SCRIPT_FILE = packageFile(join('public', 'admin-job.js'));

/** The batch job page's script (keeps a running job's page current). */
export function readAdminJobScript(): string {
  return readFileSync(ADMIN_JOB_SCRIPT_FILE, 'utf8');
}

export const helpers = { formatMoney, formatDateTime, stateLabel, errorParts };

/** What every page gets, set by the router's middleware on `res.locals.admin`. */
export interface PageContext {
  base: string;
  staff: { id: string; name?: string | undefined } | null;
  csrfToken: string;
  flash: Flash | null;
  /** True under the kit's own sign-in (the layout then offers password change and sign-out). */
  signIn?: boolean;
}

export function pageContext(res: Response): PageContext {
  const ctx = (res.locals as { admin?: PageContext }).admin;
  return ctx ?? { base: '', staff: null, csrfToken: '', flash: null };
}

/** Renders an admin page; admin pages are never cached. */
export function sendView(res: Response, views: Views, name: ViewName, locals: Record<string, unknown>, status = 200): void {
  const html = views[name]({ ...pageContext(res), helpers, ...locals });
  res.status(status).set('Cache-Control', 'no-store').type('html').send(html);
}

/** A short error page (401, 403, 400, 404, 500). The message must not carry card data. */
export function sendError(res: Response, views: Views, status: number, heading: string, message: string): void {
  sendView(res, views, 'error', { title: heading, heading, message }, status);
}
