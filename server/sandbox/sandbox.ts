/**
 * createSandbox: a stateful local gateway implementing the whole interface, as an Express app
 * that can listen on its own or be mounted inside another app.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SandboxClock, type ClockAdvance } from './clock.js';
import type { SandboxContext } from './context.js';
import { openDatabase } from './db.js';
import { endpoint, HeldResponses, type DirectHandler, type EndpointHandler } from './endpoint.js';
import { FaultRegistry, type FaultRule, type SandboxOperation, type StoredFaultRule } from './faults.js';
import { jsonReply, writeReply } from './http.js';
import { accountKey, LedgerStore, type SandboxLedger } from './ledger.js';
import { Notifier } from './notifier.js';
import { resolveSandboxOptions, type SandboxOptions } from './options.js';
import { Pages } from './pages.js';
import { handleAuthorise } from './routes/authorise.js';
import { handleCancel, handleCapture, handleReview } from './routes/batch.js';
import { handleCheckout, mountHostedPages } from './routes/checkout.js';
import { mountControl } from './routes/control.js';
import { mountInspector } from './routes/inspector.js';
import { mountIssuerPages } from './routes/issuer.js';
import { handleOptimise } from './routes/optimise.js';
import { handlePayout } from './routes/payout.js';
import { handleQuery, handleRefundSearch } from './routes/query.js';
import { handleRefund } from './routes/refund.js';
import { handleCancelSubscription } from './routes/subscription.js';
import { handleUpdateOrders } from './routes/update-orders.js';
import { advanceClock, mountScheduleControl } from './routes/schedule-control.js';
import { DeductionScheduler, failNextDeduction, runDueDeductions } from './schedule.js';
import type { SandboxSubscription, SandboxTransaction } from './types.js';

/** How often the schedule looks for deductions due on real time. */
const DEDUCTION_TICK_MS = 60_000;

export interface SandboxListener {
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export interface Sandbox {
  /** The gateway; also mountable: `shop.use('/gateway', sandbox.app)`. */
  app: express.Express;
  /** Serves the app on `port` (0 or absent: any free port) and `host` (default 127.0.0.1). */
  listen(port?: number, host?: string): Promise<SandboxListener>;
  ledger: SandboxLedger;
  faults: { add(rule: FaultRule): StoredFaultRule; clear(): void; list(): StoredFaultRule[] };
  notifier: { flush(): Promise<void> };
  /**
   * The subscription schedule's clock. `advance` moves it forward and charges every deduction
   * that falls due (returned oldest first); their notifications are sent as usual (`notifier.flush()`).
   */
  clock: { now(): Date; advance(by: ClockAdvance): { now: Date; deductions: SandboxTransaction[] } };
  subscriptions: {
    /** The next deduction of `recurringId` is declined with `resultInfo` (default `0051:Insufficient funds`). */
    failNext(recurringId: string, resultInfo?: string): SandboxSubscription;
    /** Charges what is due on the clock now (the sandbox also does this every minute). */
    runDue(): SandboxTransaction[];
  };
  /** Stops timers and held responses, closes listeners and the SQLite file. */
  close(): Promise<void>;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const resolved = resolveSandboxOptions(options);
  const pages = new Pages();
  const database = openDatabase(resolved.sqlitePath);
  const ledger = new LedgerStore(database);
  const faults = new FaultRegistry();
  const notifier = new Notifier({ ledger, faults, logger: resolved.logger, timeScale: resolved.notifyTimeScale, timeoutMs: resolved.notifyTimeoutMs });
  const ctx: SandboxContext = {
    options: resolved,
    ledger,
    notifier,
    faults,
    accounts: new Map(resolved.accounts.map((a) => [accountKey(a.merchantId, a.accountId), a])),
    clock: new SandboxClock(database),
  };
  const scheduler = new DeductionScheduler(ctx, DEDUCTION_TICK_MS);
  const held = new HeldResponses();
  const servers = new Set<Server>();

  const app = express();
  app.disable('x-powered-by');
  // Every answer, pages and API alike (header set directly: the sandbox imports nothing of the kit's).
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  const direct = new Map<string, DirectHandler>();
  const operation = (path: string, name: SandboxOperation, handler: EndpointHandler): void => {
    const served = endpoint(ctx, held, name, handler);
    app.post(path, served.express);
    direct.set(path, served.direct);
  };
  operation('/v1/authorise', 'authorise', (req, fields) => handleAuthorise(ctx, req, fields));
  operation('/v1/checkout', 'checkout', (req, fields) => handleCheckout(ctx, pages, req, fields));
  operation('/v1/retrievalTrans', 'retrievalTrans', (req, fields) => handleQuery(ctx, req, fields));
  operation('/v1/retrievalRefund', 'retrievalRefund', (req, fields) => handleRefundSearch(ctx, req, fields));
  operation('/v1/capture', 'capture', (_req, fields) => handleCapture(ctx, fields));
  operation('/v1/cancel', 'cancel', (_req, fields) => handleCancel(ctx, fields));
  operation('/v1/review', 'review', (_req, fields) => handleReview(ctx, fields));
  operation('/v1/refund', 'refund', (_req, fields) => handleRefund(ctx, fields));
  operation('/v1/payout', 'payout', (_req, fields) => handlePayout(ctx, fields));
  operation('/v1/cancelsubscription', 'cancelsubscription', (_req, fields, contentType) => handleCancelSubscription(ctx, fields, contentType));
  operation('/v1/optimise', 'optimise', (_req, fields) => handleOptimise(ctx, fields));
  operation('/v1/updateOrders', 'updateOrders', (_req, fields) => handleUpdateOrders(ctx, fields));
  mountIssuerPages(app, ctx, pages);
  mountHostedPages(app, ctx, pages);
  mountControl(app, ctx, {
    reset: () => {
      faults.clear();
      notifier.cancelAll();
      ledger.reset();
      ctx.clock.reset();
    },
  });
  mountScheduleControl(app, ctx);
  mountInspector(app, ctx, pages);
  app.use('/v1', (_req, res) => {
    writeReply(res, jsonReply({ code: 'I0404', source: 'path', message: 'no such operation' }, 404));
  });
  const internalError = (error: unknown, res: ServerResponse): void => {
    resolved.logger.error({ error }, 'sandbox request failed');
    if (!res.headersSent) writeReply(res, jsonReply({ code: 'I9999', source: '', message: 'sandbox internal error' }, 500));
  };
  // Last resort: never show a stack trace.
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    internalError(error, res);
  });

  /**
   * The servers of listen() answer the /v1 operations (exact paths, POST) without Express, whose
   * routing costs about as much as a whole query; the answers are the same, header for header.
   * Everything else goes to the app, and so does every request once the app's settings differ
   * from the defaults this path reproduces.
   */
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const run = req.method === 'POST' ? direct.get(query === -1 ? url : url.slice(0, query)) : undefined;
    if (run === undefined || app.enabled('trust proxy') || app.enabled('x-powered-by')) {
      app(req, res);
      return;
    }
    run(req, res).catch((error: unknown) => {
      internalError(error, res);
    });
  };

  notifier.resume();
  scheduler.start();
  let closed = false;

  return {
    app,
    ledger,
    faults: { add: (rule) => faults.add(rule), clear: () => { faults.clear(); }, list: () => faults.list() },
    notifier: { flush: () => notifier.flush() },
    clock: { now: () => ctx.clock.now(), advance: (by) => advanceClock(ctx, by) },
    subscriptions: {
      failNext(recurringId, resultInfo) {
        const changed = failNextDeduction(ctx, recurringId, resultInfo);
        if (changed === undefined) throw new RangeError(`no subscription ${recurringId}`);
        return changed;
      },
      runDue: () => runDueDeductions(ctx),
    },
    async listen(port = 0, host = '127.0.0.1') {
      const server = createServer(serve);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      servers.add(server);
      const actual = (server.address() as AddressInfo).port;
      const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
      return {
        baseUrl: `http://${shownHost}:${actual}`,
        port: actual,
        close: async () => {
          servers.delete(server);
          await closeServer(server);
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      held.releaseAll();
      scheduler.stop();
      notifier.close();
      await Promise.all([...servers].map(closeServer));
      servers.clear();
      database.close();
    },
  };
}
