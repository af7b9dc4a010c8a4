import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../../server/http/in-order.js';

const req = {} as unknown as Request;
const res = {} as unknown as Response;

/** Runs the chain and resolves with what it handed on (undefined when it ended with next()). */
function run(handlers: RequestHandler[]): Promise<unknown> {
  return new Promise((resolve) => {
    void inOrder(handlers)(req, res, ((err?: unknown) => {
      resolve(err);
    }) as NextFunction);
  });
}

describe('inOrder: handlers run as one, as a route runs them', () => {
  it('runs each in turn, async ones included', async () => {
    const seen: string[] = [];
    const out = await run([
      (_q, _s, next) => { seen.push('a'); next(); },
      async (_q, _s, next) => { await Promise.resolve(); seen.push('b'); next(); },
      (_q, _s, next) => { seen.push('c'); next(); },
    ]);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(out).toBeUndefined();
  });

  it('hands on next(err), a throw and a rejection, skipping the rest', async () => {
    const boom = new Error('boom');
    let reached = false;
    const after: RequestHandler = () => { reached = true; };
    expect(await run([(_q, _s, next) => { next(boom); }, after])).toBe(boom);
    expect(await run([() => { throw boom; }, after])).toBe(boom);
    expect(await run([async () => { await Promise.resolve(); throw boom; }, after])).toBe(boom);
    expect(reached).toBe(false);
  });

  it("leaves the chain on next('route') without an error", async () => {
    let reached = false;
    expect(await run([(_q, _s, next) => { next('route'); }, () => { reached = true; }])).toBeUndefined();
    expect(reached).toBe(false);
  });
});
