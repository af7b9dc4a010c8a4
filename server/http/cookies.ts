/** Reads one cookie from the request's Cookie header (no cookie parser needs to be mounted). */
import type { Request } from 'express';

/** The raw value of cookie `name`, or null when the request does not carry it. */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
