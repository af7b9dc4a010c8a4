/**
 * An HTTP server for an Express app whose requests and responses are born with the app's own
 * prototypes. Express's `app.handle` moves every request and response onto `app.request` and
 * `app.response` with `Object.setPrototypeOf`; on V8 that gives each of them a hidden class of its
 * own, so every property access in Express, in Node's HTTP code and in the routes misses its
 * inline cache, and a fifth to a third of what a request allocates survives to the old generation
 * (docs/performance.md, "Memory"). Node creates them from the classes a server is given; when
 * those already sit on the app's prototypes, Express's call changes nothing. Same app, same
 * routes, same `req`/`res` API: only the objects' birth differs. `bench/express-promotion.ts`
 * measures it (a trivial POST, 32 connections, one session: 8,660 → 28,548 req/s, promoted 33% → 0%).
 */
import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Express } from 'express';

/** The prototypes Express gives the app's requests and responses, as classes a server can create. */
export interface AppServerClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

const classesOf = new WeakMap<Express, AppServerClasses>();

/**
 * The `IncomingMessage` and `ServerResponse` options for `http.createServer` or
 * `https.createServer` that create `app`'s requests and responses on its own prototypes. Call it
 * on the app the server hands requests to (the outermost one). It puts one object in front of
 * `app.request` and `app.response` (each inheriting everything they had, `req.app` included), so
 * what the shop adds to them before or after still reaches every request.
 */
export function appServerClasses(app: Express): AppServerClasses {
  const known = classesOf.get(app);
  if (known !== undefined) return known;
  class AppRequest extends IncomingMessage {}
  class AppResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  // Its own `app` too, as Express's objects have: mounted under another app later, Express
  // re-links these to the parent's and `req.app` must still be this app.
  for (const proto of [AppRequest.prototype, AppResponse.prototype]) {
    Object.defineProperty(proto, 'app', { configurable: true, enumerable: true, writable: true, value: app });
  }
  app.request = AppRequest.prototype as Express['request'];
  app.response = AppResponse.prototype as Express['response'];
  const classes: AppServerClasses = { IncomingMessage: AppRequest, ServerResponse: AppResponse };
  classesOf.set(app, classes);
  return classes;
}

/**
 * `http.createServer(app)` with `appServerClasses(app)`: use it where a shop calls
 * `app.listen(port)` (`createAppServer(app).listen(port)`).
 */
export function createAppServer(app: Express, options: Omit<ServerOptions, 'IncomingMessage' | 'ServerResponse'> = {}): Server {
  return createServer({ ...options, ...appServerClasses(app) }, app);
}
