/**
 * Reads the body of a POST that the kit does not control the sender of: the gateway's
 * notification and the shopper's cross-site return. It works whatever body parsers the shop
 * mounted before the router: when the stream is still unread it is read here (raw bytes kept),
 * when a shop parser already consumed it the parsed `req.body` is used instead.
 * Form-encoded, JSON (also JSON sent under a form content type, as the gateway's samples do)
 * and multipart bodies are understood; every value becomes a string.
 */
import type { Request } from 'express';
import { bodyConsumed, formEntries, isMultipart, readRequestBody, type FormEntry } from './read-body.js';

export class HttpError extends Error {
  readonly status: number;
  readonly expose = true;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}

export interface PostedBody {
  /** The raw bytes when this module read the stream; null when a shop parser had consumed it. */
  raw: Buffer | null;
  fields: Record<string, string>;
  /** Names of fields sent more than once (only the first value is in `fields`). */
  repeated: string[];
}

interface Fields {
  fields: Record<string, string>;
  repeated: string[];
}

const BODY_ERRORS = {
  tooLarge: (): Error => new HttpError(413, 'Request body too large'),
  incomplete: (): Error => new HttpError(400, 'Request body incomplete'),
};

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  return undefined;
}

/** Top-level scalar values of an object; nested values are not part of any signed field. */
function fromObject(value: unknown): Fields {
  const out: Record<string, string> = {};
  const repeated: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { fields: out, repeated };
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v) && v.length > 1) repeated.push(key);
    const s = Array.isArray(v) ? scalar(v[0]) : scalar(v);
    if (s !== undefined) out[key] = s;
  }
  return { fields: out, repeated };
}

function fromText(text: string): Fields {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return fromObject(JSON.parse(trimmed));
    } catch {
      throw new HttpError(400, 'Malformed JSON body');
    }
  }
  const out: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [key, value] of new URLSearchParams(trimmed)) {
    // The first occurrence wins: a repeated field must not override a signed one. hasOwn, not
    // `in`: a field named like an Object.prototype member (constructor, toString) is kept.
    if (!Object.hasOwn(out, key)) out[key] = value;
    else repeated.add(key);
  }
  return { fields: out, repeated: [...repeated] };
}

async function fromMultipart(raw: Buffer, contentType: string): Promise<Fields> {
  let entries: FormEntry[];
  try {
    entries = await formEntries(raw, contentType);
  } catch {
    throw new HttpError(400, 'Malformed multipart body');
  }
  const out: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [key, value] of entries) {
    if (Object.hasOwn(out, key)) repeated.add(key);
    else if (typeof value === 'string') out[key] = value;
  }
  return { fields: out, repeated: [...repeated] };
}

function fromParsed(body: unknown): Fields {
  if (Buffer.isBuffer(body)) return fromText(body.toString('utf8'));
  if (typeof body === 'string') return fromText(body);
  return fromObject(body);
}

/** The posted fields (empty for a GET or an empty body). Throws HttpError 400/413. */
export async function readPostedBody(req: Request, limit: number): Promise<PostedBody> {
  if (!bodyConsumed(req) && (req.method === 'GET' || req.method === 'HEAD')) return { raw: null, fields: {}, repeated: [] };
  const body = await readRequestBody(req, limit, BODY_ERRORS);
  if (body.consumed) return { raw: null, ...fromParsed(body.parsed) };
  const { raw, contentType } = body;
  if (isMultipart(contentType)) return { raw, ...(await fromMultipart(raw, contentType)) };
  return { raw, ...fromText(raw.toString('utf8')) };
}
