/**
 * Form bodies for the admin's POST routes: url-encoded, or multipart for the CSV upload. The
 * router reads the body itself, so it works whatever body parsers the shop mounted; when a shop
 * parser already consumed the stream, its parsed `req.body` is used instead.
 */
import type { Request } from 'express';
import { KitError } from '../errors.js';

export const MAX_FORM_BYTES = 1024 * 1024;

/** Field name → values (a repeated field, such as ticked checkboxes, has several). */
export type FormFields = Record<string, string[]>;

export class BodyTooLargeError extends KitError {
  constructor() {
    super('ERR_VALIDATION', `The form is larger than ${MAX_FORM_BYTES} bytes`);
  }
}

function fromParsed(body: unknown): FormFields | null {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return null;
  const out: FormFields = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const list = Array.isArray(value) ? (value as unknown[]) : [value];
    out[key] = list.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String);
  }
  return out;
}

async function readRaw(req: Request): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? '0') > MAX_FORM_BYTES) {
    // Refuse before reading, and let the rest drain: the client then reads the 413 instead of a reset.
    req.resume();
    throw new BodyTooLargeError();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > MAX_FORM_BYTES) throw new BodyTooLargeError();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function add(out: FormFields, key: string, value: string): void {
  (out[key] ??= []).push(value);
}

/** Parses the request's form body once; the result is also left on `req.body` (first values). */
export async function readForm(req: Request): Promise<FormFields> {
  const parsed = fromParsed(req.body);
  if (parsed !== null && (req.readableEnded || Object.keys(parsed).length > 0)) return parsed;
  const header = req.headers['content-type'] ?? '';
  const type = header.toLowerCase();
  const raw = req.readableEnded ? Buffer.alloc(0) : await readRaw(req);
  const out: FormFields = {};
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': header } }).formData();
    const files: Promise<void>[] = [];
    form.forEach((value, key) => {
      if (typeof value === 'string') add(out, key, value);
      else {
        files.push(
          value.text().then((text) => {
            add(out, key, text);
          }),
        );
      }
    });
    await Promise.all(files);
  } else if (type.startsWith('application/x-www-form-urlencoded') || type === '') {
    new URLSearchParams(raw.toString('utf8')).forEach((value, key) => {
      add(out, key, value);
    });
  }
  // The shared CSRF check reads `req.body[field]` as a string.
  req.body = Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v[0] ?? '']));
  return out;
}

export function first(fields: FormFields, name: string): string {
  return fields[name]?.[0] ?? '';
}
