/**
 * Several request handlers run as one, in order, as an Express route runs them: a handler moves
 * on with `next()`, `next(err)` (or a throw, or a rejected promise) skips the rest and hands the
 * error on, `next('route')` leaves the chain. The hot POST routes use it instead of a route of
 * five handlers: the router's walk and its dispatch per handler cost more than the handlers'
 * own work on those routes.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

function isPromise(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export function inOrder(handlers: readonly RequestHandler[]): RequestHandler {
  const steps = [...handlers];
  return (req: Request, res: Response, done: NextFunction): void => {
    let index = 0;
    const next = (err?: unknown): void => {
      if (err === 'route') {
        done();
        return;
      }
      if (err) {
        done(err);
        return;
      }
      const step = steps[index++];
      if (step === undefined) {
        done();
        return;
      }
      try {
        const result: unknown = step(req, res, next);
        if (isPromise(result)) {
          result.then(undefined, (error: unknown) => {
            next(error || new Error('Rejected promise'));
          });
        }
      } catch (error) {
        next(error);
      }
    };
    next();
  };
}
