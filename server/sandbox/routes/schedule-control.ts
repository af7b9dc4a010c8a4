/**
 * The control API's clock and subscription schedule (loopback only, like the rest of
 * /_sandbox/): read and advance the sandbox clock, which charges the deductions that fall due,
 * and make a subscription's next deduction fail. The inspector's buttons post here.
 */
import type { Express } from 'express';
import type { ClockAdvance } from '../clock.js';
import type { SandboxContext } from '../context.js';
import { param, SandboxHttpError, str } from '../http.js';
import { failNextDeduction, runDueDeductions } from '../schedule.js';
import type { SandboxTransaction } from '../types.js';
import { control } from './control.js';

const UNITS = ['months', 'days', 'hours', 'minutes'] as const;

/** Reads `{months, days, hours, minutes}` (numbers or digit strings, none negative, at least one). */
export function readAdvance(fields: Record<string, unknown>): ClockAdvance {
  const by: ClockAdvance = {};
  for (const unit of UNITS) {
    const raw = fields[unit];
    if (raw === undefined || raw === '') continue;
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < 0 || value > 100_000) {
      throw new SandboxHttpError(400, 'I0001', unit, `${unit} must be a whole number from 0 to 100000`);
    }
    by[unit] = value;
  }
  if (UNITS.every((unit) => (by[unit] ?? 0) === 0)) throw new SandboxHttpError(400, 'I0001', 'months', 'give months, days, hours or minutes to advance by');
  return by;
}

/** Moves the clock and charges what fell due. */
export function advanceClock(ctx: SandboxContext, by: ClockAdvance): { now: Date; deductions: SandboxTransaction[] } {
  const now = ctx.clock.advance(by);
  return { now, deductions: runDueDeductions(ctx) };
}

export function mountScheduleControl(app: Express, ctx: SandboxContext): void {
  app.get('/_sandbox/clock', control(ctx, () => ({ now: ctx.clock.now().toISOString(), offsetMs: ctx.clock.offsetMs })));

  app.post('/_sandbox/clock/advance', control(ctx, (_req, fields) => {
    const { now, deductions } = advanceClock(ctx, readAdvance(fields));
    return { now: now.toISOString(), deductions };
  }));

  app.post('/_sandbox/subscriptions/:id/fail-next', control(ctx, (req, fields) => {
    const resultInfo = str(fields, 'result_info');
    if (resultInfo !== '' && !/^[0-9A-Z]{4}:.{1,100}$/.test(resultInfo)) {
      throw new SandboxHttpError(400, 'I0001', 'result_info', 'result_info must look like "0051:Insufficient funds"');
    }
    const subscription = failNextDeduction(ctx, param(req, 'id'), resultInfo === '' ? undefined : resultInfo);
    if (subscription === undefined) throw new SandboxHttpError(404, 'I0404', 'id', `no subscription ${param(req, 'id')}`);
    return { subscription };
  }));
}
