/**
 * createSandbox: a stateful local gateway implementing the whole interface, as an Express app
 * that can listen on its own or be mounted inside another app.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { SandboxContext } from './context.js';
import { openDatabase } from './db.js';
import { endpoint, HeldResponses } from './endpoint.js';
import { FaultRegistry, type FaultRule, type StoredFaultRule } from './faults.js';
import { jsonReply, sendReply } from './http.js';
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
  };
  const held = new HeldResponses();
  const servers = new Set<Server>();

  const app = express();
  app.disable('x-powered-by');
  app.post('/v1/authorise', endpoint(ctx, held, 'authorise', (req, fields) => handleAuthorise(ctx, req, fields)));
  app.post('/v1/checkout', endpoint(ctx, held, 'checkout', (req, fields) => handleCheckout(ctx, pages, req, fields)));
  app.post('/v1/retrievalTrans', endpoint(ctx, held, 'retrievalTrans', (req, fields) => handleQuery(ctx, req, fields)));
  app.post('/v1/retrievalRefund', endpoint(ctx, held, 'retrievalRefund', (req, fields) => handleRefundSearch(ctx, req, fields)));
  app.post('/v1/capture', endpoint(ctx, held, 'capture', (_req, fields) => handleCapture(ctx, fields)));
  app.post('/v1/cancel', endpoint(ctx, held, 'cancel', (_req, fields) => handleCancel(ctx, fields)));
  app.post('/v1/review', endpoint(ctx, held, 'review', (_req, fields) => handleReview(ctx, fields)));
  app.post('/v1/refund', endpoint(ctx, held, 'refund', (_req, fields) => handleRefund(ctx, fields)));
  app.post('/v1/payout', endpoint(ctx, held, 'payout', (_req, fields) => handlePayout(ctx, fields)));
  app.post('/v1/cancelsubscription', endpoint(ctx, held, 'cancelsubscription', (_req, fields) => handleCancelSubscription(ctx, fields)));
  app.post('/v1/optimise', endpoint(ctx, held, 'optimise', (_req, fields) => handleOptimise(ctx, fields)));
  app.post('/v1/updateOrders', endpoint(ctx, held, 'updateOrders', (_req, fields) => handleUpdateOrders(ctx, fields)));
  mountIssuerPages(app, ctx, pages);
  mountHostedPages(app, ctx, pages);
  mountControl(app, ctx, {
    reset: () => {
      faults.clear();
      notifier.cancelAll();
      ledger.reset();
    },
  });
  mountInspector(app, ctx, pages);
  app.use('/v1', (_req, res) => {
    sendReply(res, jsonReply({ code: 'I0404', source: 'path', message: 'no such operation' }, 404));
  });
  // Last resort: never show a stack trace.
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    resolved.logger.error({ error }, 'sandbox request failed');
    if (!res.headersSent) sendReply(res, jsonReply({ code: 'I9999', source: '', message: 'sandbox internal error' }, 500));
  });

  notifier.resume();
  let closed = false;

  return {
    app,
    ledger,
    faults: { add: (rule) => faults.add(rule), clear: () => { faults.clear(); }, list: () => faults.list() },
    notifier: { flush: () => notifier.flush() },
    async listen(port = 0, host = '127.0.0.1') {
      const server = createServer(app);
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
      notifier.close();
      await Promise.all([...servers].map(closeServer));
      servers.clear();
      database.close();
    },
  };
}
