/**
 * Reads the body of a POST that the kit does not control the sender of: the gateway's
 * notification and the shopper's cross-site return. It works whatever body parsers the shop
 * mounted before the router: when the stream is still unread it is read here (raw bytes kept),
 * when a shop parser already consumed it the parsed `req.body` is used instead.
 * Form-encoded, JSON (also JSON sent under a form content type, as the gateway's samples do)
 * and multipart bodies are understood; every value becomes a string.
 */
import type { Request } from 'express';

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
}

function consumed(req: Request): boolean {
  return req.readableEnded || (req.complete && !req.readable);
}

/** The body's bytes, read with stream events (an async iterator costs more than the read itself). */
function readRaw(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) return Promise.reject(new HttpError(413, 'Request body too large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        done();
        // An undeclared body past the limit: stop reading it at all.
        req.destroy();
        reject(new HttpError(413, 'Request body too large'));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const onClose = (): void => {
      // Closed before 'end': the sender went away mid-body.
      done();
      reject(new HttpError(400, 'Request body incomplete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  return undefined;
}

/** Top-level scalar values of an object; nested values are not part of any signed field. */
function fromObject(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const s = Array.isArray(v) ? scalar(v[0]) : scalar(v);
    if (s !== undefined) out[key] = s;
  }
  return out;
}

function fromText(text: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return fromObject(JSON.parse(trimmed));
    } catch {
      throw new HttpError(400, 'Malformed JSON body');
    }
  }
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(trimmed)) {
    // The first occurrence wins: a repeated field must not override a signed one.
    if (!(key in out)) out[key] = value;
  }
  return out;
}

async function fromMultipart(raw: Buffer, contentType: string): Promise<Record<string, string>> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new HttpError(400, 'Malformed multipart body');
  }
  const out: Record<string, string> = {};
  form.forEach((value, key) => {
    if (typeof value === 'string' && !(key in out)) out[key] = value;
  });
  return out;
}

/** The posted fields (empty for a GET or an empty body). Throws HttpError 400/413. */
export async function readPostedBody(req: Request, limit: number): Promise<PostedBody> {
  if (consumed(req)) {
    const body: unknown = req.body;
    if (Buffer.isBuffer(body)) return { raw: null, fields: fromText(body.toString('utf8')) };
    if (typeof body === 'string') return { raw: null, fields: fromText(body) };
    return { raw: null, fields: fromObject(body) };
  }
  if (req.method === 'GET' || req.method === 'HEAD') return { raw: null, fields: {} };
  const raw = await readRaw(req, limit);
  const contentType = req.headers['content-type'] ?? '';
  if (/^multipart\/form-data/i.test(contentType)) return { raw, fields: await fromMultipart(raw, contentType) };
  return { raw, fields: fromText(raw.toString('utf8')) };
}
