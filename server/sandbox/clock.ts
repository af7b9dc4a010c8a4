/**
 * The sandbox clock: real time plus an offset that tests and the inspector move forward
 * ("advance 1 month"), so a subscription's deductions fall due without waiting for them. The
 * offset is kept in the ledger's database: a sandbox on a SQLite file keeps its clock across a
 * restart. Only the subscription schedule reads this clock; every other time is real time.
 */
import { Collection, type SandboxDatabase } from './db.js';

export interface ClockAdvance {
  months?: number;
  days?: number;
  hours?: number;
  minutes?: number;
}

interface ClockRow {
  id: 'clock';
  offsetMs: number;
}

/** `from` moved by whole calendar months (UTC), then by days, hours and minutes. */
export function addToDate(from: Date, by: ClockAdvance): Date {
  const next = new Date(from.getTime());
  if (by.months !== undefined && by.months !== 0) next.setUTCMonth(next.getUTCMonth() + by.months);
  const ms = ((by.days ?? 0) * 24 * 60 + (by.hours ?? 0) * 60 + (by.minutes ?? 0)) * 60_000;
  return new Date(next.getTime() + ms);
}

export class SandboxClock {
  readonly #rows: Collection<ClockRow>;
  readonly #realNow: () => number;
  #offsetMs: number;

  constructor(database: SandboxDatabase, realNow: () => number = Date.now) {
    this.#rows = new Collection<ClockRow>(database.db, 'settings', () => ['clock', ''], database.settle);
    this.#realNow = realNow;
    this.#offsetMs = this.#rows.get('clock')?.offsetMs ?? 0;
  }

  now(): Date {
    return new Date(this.#realNow() + this.#offsetMs);
  }

  /** How far the clock is ahead of real time, in ms. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the clock forward (never back: a deduction once charged stays in the past). */
  advance(by: ClockAdvance): Date {
    const now = this.now();
    const next = addToDate(now, by);
    if (next.getTime() < now.getTime()) throw new RangeError('the sandbox clock only moves forward');
    this.#offsetMs += next.getTime() - now.getTime();
    this.#rows.put('clock', { id: 'clock', offsetMs: this.#offsetMs });
    return next;
  }

  /** Back to real time (control API reset). */
  reset(): void {
    this.#offsetMs = 0;
    this.#rows.clear();
  }
}
