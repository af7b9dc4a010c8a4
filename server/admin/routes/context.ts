/** What every admin route module receives from the router. */
import type { Request, Response } from 'express';
import { ValidationError } from '../../errors.js';
import type { Flash, FlashCodec } from '../flash.js';
import type { JobRunner } from '../jobs.js';
import type { ResolvedAdminOptions, Staff } from '../options.js';
import { pageContext } from '../views.js';
import type { Views } from '../views.js';

export interface RouteContext {
  options: ResolvedAdminOptions;
  views: Views;
  flash: FlashCodec;
  jobs: JobRunner;
}

/** The signed-in staff member (the authenticate guard ran before any route). */
export function staffOf(res: Response): Staff {
  const staff = pageContext(res).staff;
  if (staff === null) throw new Error('admin route reached without staff');
  return staff;
}

/** 303 to a path under the admin's mount point, with an optional signed flash message. */
export function redirect(ctx: RouteContext, res: Response, path: string, flash?: Flash): void {
  const base = pageContext(res).base;
  const query = flash === undefined ? '' : `${path.includes('?') ? '&' : '?'}${ctx.flash.encode(flash)}`;
  res.redirect(303, `${base}${path}${query}`);
}

/** A route parameter as a plain string (ids and order numbers never need more than 100). */
export function param(req: Request, name: string): string {
  const value: unknown = (req.params as Record<string, unknown>)[name];
  if (typeof value !== 'string' || value === '' || value.length > 100) {
    throw new ValidationError([{ field: name, message: 'is missing or too long' }]);
  }
  return value;
}
