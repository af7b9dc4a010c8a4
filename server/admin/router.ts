/**
 * `createAdminRouter(options)`: the staff admin as one Express router to mount behind the shop's
 * own staff sign-in, e.g. `app.use('/admin', createAdminRouter({ kit, authorize, csrfSecret }))`.
 * Every page is no-store under a strict CSP without scripts; every write needs a signed-in staff
 * member, a same-origin request and a valid CSRF token.
 */
import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import { ValidationError } from '../errors.js';
import { createCsrf } from '../http/csrf.js';
import { noSniff } from '../http/no-sniff.js';
import { createFlashCodec } from './flash.js';
import { createJobRunner } from './jobs.js';
import type { JobRunner } from './jobs.js';
import { ActionNotAllowedError } from './order-actions.js';
import { resolveAdminOptions } from './options.js';
import type { AdminRouterOptions } from './options.js';
import { registerBatchRoutes } from './routes/batch.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import type { RouteContext } from './routes/context.js';
import { registerOrderRoutes } from './routes/orders.js';
import { registerPayoutRoutes } from './routes/payouts.js';
import { registerRefundRoutes } from './routes/refunds.js';
import { registerSavedCardRoutes } from './routes/saved-cards.js';
import { registerSubscriptionRoutes } from './routes/subscriptions.js';
import { authenticate, headers, protectWrites } from './security.js';
import { createSignIn } from './sign-in/routes.js';
import type { StaffStore } from './staff-store.js';
import type { GuardDeps } from './security.js';
import { compileViews, pageContext, readAdminCss, readAdminJobScript, sendError } from './views.js';

export interface AdminRouter extends Router {
  /** Resumes every unfinished batch job (call at start-up unless `resumeOnStart` does). */
  resumeJobs(): Promise<string[]>;
  /** The batch job runner (start, isRunning, idle…). */
  jobs: JobRunner;
  /** Waits for running jobs to finish their current work. */
  idle(): Promise<void>;
}

export function createAdminRouter(input: AdminRouterOptions): AdminRouter {
  const options = resolveAdminOptions(input);
  const views = compileViews();
  const css = readAdminCss();
  const jobScript = readAdminJobScript();
  const flash = createFlashCodec(options.csrfSecret);
  const basePath = (req: Request): string => options.mountPath ?? req.baseUrl;
  const csrf = createCsrf({ secrets: [options.csrfSecret], cookieName: 'admin_csrf', cookiePath: (req) => basePath(req) || '/' });
  const jobs = createJobRunner({ kit: options.kit, adminStore: options.adminStore, logger: options.logger, concurrency: options.batchConcurrency });
  const signIn = options.signIn === null ? null : createSignIn({
    // resolveAdminOptions checked that the store has every StaffStore method.
    options: options.signIn, store: options.adminStore as StaffStore, csrf, flash, views, logger: options.logger,
    allowedOrigins: options.allowedOrigins, basePath, observer: options.kit.metrics,
  });
  const authorize = signIn?.authorize ?? options.authorize;
  if (authorize === null) throw new Error('createAdminRouter: no authorize after validation');
  const guards: GuardDeps = {
    authorize,
    onUnauthenticated: options.onUnauthenticated ?? signIn?.onUnauthenticated,
    csrf,
    flash,
    views,
    logger: options.logger,
    allowedOrigins: options.allowedOrigins,
    basePath,
  };
  const ctx: RouteContext = { options, views, flash, jobs };

  const router = express.Router();
  router.use(noSniff);
  // The stylesheet is public: the 401 page and a shop's login page may use it.
  router.get('/assets/admin.css', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/css').send(css);
  });
  router.get('/assets/admin-job.js', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/javascript').send(jobScript);
  });
  router.use(headers());
  signIn?.publicRoutes(router);
  router.use(authenticate(guards));
  router.use(protectWrites(guards));
  signIn?.signedInRoutes(router);
  registerOrderRoutes(router, ctx);
  registerBatchRoutes(router, ctx);
  registerRefundRoutes(router, ctx);
  registerPayoutRoutes(router, ctx);
  registerSubscriptionRoutes(router, ctx);
  registerSavedCardRoutes(router, ctx);
  registerDashboardRoutes(router, ctx);
  router.use((_req, res) => {
    sendError(res, views, 404, 'Not found', 'There is no admin page here.');
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (err instanceof ValidationError) {
      sendError(res, views, 400, 'Invalid input', `${err.message}. Nothing was changed.`);
      return;
    }
    if (err instanceof ActionNotAllowedError) {
      sendError(res, views, 409, 'Action not possible', `${err.message}. Nothing was sent.`);
      return;
    }
    options.logger.error({ err, staff: pageContext(res).staff?.id ?? null }, 'admin request failed');
    sendError(res, views, 500, 'Something went wrong', 'The request failed. If it was an action, check the order before trying again.');
  });

  const resumeJobs = (): Promise<string[]> => jobs.resumeAll();
  if (options.resumeOnStart) {
    resumeJobs().catch((err: unknown) => {
      options.logger.error({ err }, 'admin: resuming batch jobs failed');
    });
  }
  return Object.assign(router, { resumeJobs, jobs, idle: () => jobs.idle() });
}
