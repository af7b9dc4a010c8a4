/**
 * Form bodies for the admin's POST routes: url-encoded, or multipart for the CSV upload, read
 * through the shared reader (so they work whatever body parsers the shop mounted; when a shop
 * parser already consumed the stream, its parsed `req.body` is used instead).
 */
import type { Request } from 'express';
import { KitError } from '../errors.js';
import { bodyConsumed, formEntries, readRequestBody } from './read-body.js';

export const MAX_FORM_BYTES = 1024 * 1024;

/** Field name → values (a repeated field, such as ticked checkboxes, has several). */
export type FormFields = Record<string, string[]>;

export class BodyTooLargeError extends KitError {
  constructor() {
    super('ERR_VALIDATION', `The form is larger than ${MAX_FORM_BYTES} bytes`);
  }
}

const BODY_ERRORS = {
  tooLarge: (): Error => new BodyTooLargeError(),
  incomplete: (): Error => new KitError('ERR_VALIDATION', 'The form was not sent completely'),
};

function fromParsed(body: unknown): FormFields | null {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return null;
  const out: FormFields = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const list = Array.isArray(value) ? (value as unknown[]) : [value];
    out[key] = list.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String);
  }
  return out;
}

function add(out: FormFields, key: string, value: string): void {
  (out[key] ??= []).push(value);
}

/** Parses the request's form body once; the result is also left on `req.body` (first values). */
export async function readForm(req: Request): Promise<FormFields> {
  const parsed = fromParsed(req.body);
  // A shop parser's result; an empty one counts only when it did read the stream.
  if (parsed !== null && (bodyConsumed(req) || Object.keys(parsed).length > 0)) return parsed;
  const body = await readRequestBody(req, MAX_FORM_BYTES, BODY_ERRORS);
  const type = body.contentType.toLowerCase();
  const out: FormFields = {};
  if (!body.consumed && (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded') || type === '')) {
    // A file part (the CSV upload) is read as text.
    for (const [key, value] of await formEntries(body.raw, body.contentType)) add(out, key, typeof value === 'string' ? value : await value.text());
  }
  // The shared CSRF check reads `req.body[field]` as a string.
  req.body = Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v[0] ?? '']));
  return out;
}

export function first(fields: FormFields, name: string): string {
  return fields[name]?.[0] ?? '';
}
