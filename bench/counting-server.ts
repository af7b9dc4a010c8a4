/**
 * The HTTP server every bench server runs its app in — the baselines and the shop under test
 * alike — so the servers differ only in what their routes do. It is the server the kit tells
 * shops to use (`createAppServer`'s classes: requests born on the app's prototypes). It counts the requests answered
 * (or abandoned by the client) and those still in flight, outside the app, so no route pays for
 * middleware another has not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { appServerClasses } from '../server/http/app-server.js';

export interface CountingServer {
  server: Server;
  /** Origin, e.g. http://127.0.0.1:40123. */
  url: string;
  /** Requests answered (or abandoned) so far. */
  handled(): number;
  /** Resolves once no request is being handled (the load generator may stop mid-request). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function listenCounting(app: Express): Promise<CountingServer> {
  let inFlight = 0;
  let handled = 0;
  const waiters: (() => void)[] = [];
  const server = createServer(appServerClasses(app), (req, res) => {
    inFlight++;
    res.once('close', () => {
      handled++;
      if (--inFlight === 0) for (const wake of waiters.splice(0)) wake();
    });
    app(req, res);
  });
  // Keep-alive longer than the load generator's idle gaps, as a proxy in front of a shop would.
  server.keepAliveTimeout = 30_000;
  const url = await new Promise<string>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    });
  });
  return {
    server,
    url,
    handled: () => handled,
    idle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push(resolve);
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
    },
  };
}
