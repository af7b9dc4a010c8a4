/**
 * Signed cookies without a session store: `base64url(JSON) "." HMAC-SHA256`. The shop keeps
 * the cart, the shopper's order list and the staff sign-in in them; a cookie that was changed
 * in the browser fails the MAC and reads as absent. Values are checked with a zod schema too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import type { z } from 'zod';

export interface SignedCookies {
  read<T>(req: Request, name: string, schema: z.ZodType<T>): T | null;
  write(req: Request, res: Response, name: string, value: unknown, options: { maxAgeMs: number; path?: string }): void;
  clear(res: Response, name: string, path?: string): void;
}

/** The raw value of one cookie from the Cookie header (no cookie parser needed). */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function createSignedCookies(secret: string): SignedCookies {
  // Domain-separated key: the shop secret never signs anything cookie-shaped directly.
  const key = createHmac('sha256', secret).update('demo-store/cookies/v1').digest();
  const mac = (name: string, payload: string): Buffer => createHmac('sha256', key).update(`${name}\u0000${payload}`).digest();

  function options(req: Request, maxAgeMs: number, path = '/'): CookieOptions {
    return { httpOnly: true, sameSite: 'lax', secure: req.secure, path, maxAge: maxAgeMs };
  }

  return {
    read(req, name, schema) {
      const raw = readCookie(req, name);
      if (raw === null || raw.length > 3800) return null;
      const [payload = '', signature = ''] = raw.split('.');
      const provided = Buffer.from(signature, 'base64url');
      if (payload === '' || provided.length !== 32 || !timingSafeEqual(provided, mac(name, payload))) return null;
      try {
        const parsed = schema.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
    write(req, res, name, value, { maxAgeMs, path }) {
      const payload = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
      res.cookie(name, `${payload}.${mac(name, payload).toString('base64url')}`, options(req, maxAgeMs, path));
    },
    clear(res, name, path = '/') {
      res.clearCookie(name, { path });
    },
  };
}
