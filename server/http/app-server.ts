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
 * A constructor that runs `Base` on objects born on `prototype` itself. Not a class: a class's
 * `prototype` is its own new object, and one put in front of `app.request` is not what Express's
 * mount re-links (a sub-app mounted earlier would miss what the app adds later, a served app
 * mounted later what it had). Node's IncomingMessage and ServerResponse are ES5 constructors, so
 * they can run on `this`; `Reflect.construct` with it as new.target would do too, but V8 then
 * gives every object a map of its own.
 */
export function bornOn<C extends typeof IncomingMessage | typeof ServerResponse>(Base: C, prototype: object): C {
  const run = Base as unknown as (this: object, first: unknown, second: unknown) => unknown;
  // Should a Node release make them classes (which cannot run on `this`), stay correct and give up
  // only the shared map.
  const isClass = Function.prototype.toString.call(Base).startsWith('class');
  const Born = function (this: object, first: unknown, second: unknown): unknown {
    return isClass ? Reflect.construct(Base, [first, second], Born) : run.call(this, first, second);
  };
  Born.prototype = prototype;
  Object.setPrototypeOf(Born, Base); // statics, as `extends` gives
  return Born as unknown as C;
}

/**
 * The `IncomingMessage` and `ServerResponse` options for `http.createServer` or
 * `https.createServer` that create `app`'s requests and responses on its own prototypes. Call it
 * on the app the server hands requests to (the outermost one). `app.request` and `app.response`
 * stay the same objects, so what the shop adds to them before or after still reaches every request.
 */
export function appServerClasses(app: Express): AppServerClasses {
  const known = classesOf.get(app);
  if (known !== undefined) return known;
  const classes: AppServerClasses = { IncomingMessage: bornOn(IncomingMessage, app.request), ServerResponse: bornOn(ServerResponse, app.response) };
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
