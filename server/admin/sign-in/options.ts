/**
 * The `signIn` option of `createAdminRouter`: the kit's own staff sign-in (accounts, server-side
 * sessions, login throttling). Validated with the router's other options at start-up.
 */
import type { Store } from 'express-rate-limit';
import { z } from 'zod';

export interface StaffLogin {
  /** The user name typed at sign-in; written as the actor of every admin event. */
  id: string;
  name?: string;
  /**
   * The initial password: plain text (hashed with scrypt at start-up, never kept) or a hash made
   * by `hashStaffPassword`. A password the staff member changed in the admin is kept over it
   * until this value changes.
   */
  password: string;
}

export interface SignInRateLimitOptions {
  /** Length of the window in milliseconds. Default 15 minutes. */
  windowMs?: number;
  /** Failed sign-ins per account name and window; the next attempt is refused (429). Default 5. */
  perAccount?: number;
  /** Failed sign-ins per client address and window. Default 20. */
  perAddress?: number;
  /**
   * Shared express-rate-limit `Store` (e.g. a rate-limit-redis RedisStore with its own prefix),
   * so the limit holds across instances; per-process memory when absent. Not the pay limit's
   * Store object: express-rate-limit refuses one store shared by two limiters.
   */
  store?: Store;
}

export interface SignInOptions {
  staff: StaffLogin[];
  /** How long a session lasts from sign-in. Default 8 hours. */
  sessionTtlMs?: number;
  rateLimit?: SignInRateLimitOptions;
  /** A line shown on the sign-in page (e.g. where to get an account). */
  note?: string;
}

export interface ResolvedSignIn {
  staff: { id: string; name: string | null; password: string }[];
  sessionTtlMs: number;
  rateLimit: { windowMs: number; perAccount: number; perAddress: number; store: Store | undefined };
  note: string | null;
}

export const SIGN_IN_DEFAULTS = { sessionTtlMs: 8 * 60 * 60 * 1000, windowMs: 15 * 60 * 1000, perAccount: 5, perAddress: 20 } as const;

const isStore = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && ['increment', 'decrement', 'resetKey'].every((n) => typeof (v as Record<string, unknown>)[n] === 'function');

export const signInSchema = z.strictObject({
  staff: z.array(z.strictObject({
    id: z.string().regex(/^[A-Za-z0-9._@-]{1,100}$/, 'must be 1–100 letters, digits or . _ @ -'),
    name: z.string().min(1).max(200).optional(),
    password: z.string().min(1, 'must not be empty').max(200),
  })).min(1, 'must name at least one staff account')
    .refine((list) => new Set(list.map((s) => s.id.toLowerCase())).size === list.length, 'must not name the same id twice'),
  sessionTtlMs: z.int().min(1000).max(30 * 24 * 60 * 60 * 1000).optional(),
  rateLimit: z.strictObject({
    windowMs: z.int().min(1000).optional(),
    perAccount: z.int().min(1).max(1000).optional(),
    perAddress: z.int().min(1).max(100_000).optional(),
    store: z.custom<Store>(isStore, 'must be an express-rate-limit Store').optional(),
  }).optional(),
  note: z.string().max(500).optional(),
});

export const SIGN_IN_FIXES: Record<string, string> = {
  signIn: 'pass signIn: { staff: [{ id: "kim", password: "…" }] }, or authorize instead of signIn',
  'signIn.staff': 'pass staff: [{ id, name?, password }], each id once (a password may be a hashStaffPassword() hash)',
  'signIn.sessionTtlMs': 'use a whole number of milliseconds from 1000 to 30 days',
  'signIn.rateLimit': 'pass { windowMs?, perAccount?, perAddress?, store? } or leave rateLimit out',
  'signIn.rateLimit.windowMs': 'use a whole number of milliseconds of at least 1000',
  'signIn.rateLimit.perAccount': 'use a whole number from 1 to 1000',
  'signIn.rateLimit.perAddress': 'use a whole number from 1 to 100000',
  'signIn.rateLimit.store': 'pass a new express-rate-limit Store (e.g. new RedisStore({ prefix: "admin:sign-in:", … })), not the pay limit\'s',
  'signIn.note': 'use a short text of at most 500 characters',
};

export function resolveSignIn(o: SignInOptions): ResolvedSignIn {
  return {
    staff: o.staff.map((s) => ({ id: s.id, name: s.name ?? null, password: s.password })),
    sessionTtlMs: o.sessionTtlMs ?? SIGN_IN_DEFAULTS.sessionTtlMs,
    rateLimit: {
      windowMs: o.rateLimit?.windowMs ?? SIGN_IN_DEFAULTS.windowMs,
      perAccount: o.rateLimit?.perAccount ?? SIGN_IN_DEFAULTS.perAccount,
      perAddress: o.rateLimit?.perAddress ?? SIGN_IN_DEFAULTS.perAddress,
      store: o.rateLimit?.store,
    },
    note: o.note ?? null,
  };
}
