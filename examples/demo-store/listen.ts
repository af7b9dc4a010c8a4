/**
 * Serves a demo store on a port. With port 0 the real port is known only once the server
 * listens, and the kit needs its public URL when it is created: so the server listens first and
 * the store is attached to it afterwards (tests, screenshots and `npm start` share this).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../server/index.js';
import { createDemoStore, type DemoStore, type DemoStoreOptions } from './app.js';

export interface RunningDemoStore {
  /** Where the store answers, e.g. http://localhost:3000. */
  url: string;
  store: DemoStore;
  server: Server;
  close(): Promise<void>;
}

export async function startDemoStore(
  options: Omit<DemoStoreOptions, 'publicUrl'> & {
    port?: number;
    host?: string;
    /** Host name in the store's URL when `publicUrl` is not given (e.g. `localhost`). Default: `host`. */
    urlHost?: string;
    publicUrl?: string;
  },
): Promise<RunningDemoStore> {
  const { port = 3000, host = '127.0.0.1', urlHost, publicUrl, ...rest } = options;
  // The app exists before the store is built on it: its server creates every request on the app's
  // prototypes (docs/checkout.md, "Serving it under load"). Idle connections outlive a proxy's
  // usual 60 s, so a busy store is not flooded with reconnects.
  const app = express();
  const server = createAppServer(app, { keepAliveTimeout: 65_000, headersTimeout: 66_000 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const url = (publicUrl ?? `http://${urlHost ?? host}:${String(actual)}`).replace(/\/+$/, '');
  let store: DemoStore;
  try {
    store = await createDemoStore({ ...rest, publicUrl: url, app });
  } catch (err) {
    server.close();
    throw err;
  }
  let closed: Promise<void> | null = null;
  return {
    url,
    store,
    server,
    close() {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
          server.closeAllConnections();
        });
        await store.close();
      })();
      return closed;
    },
  };
}
