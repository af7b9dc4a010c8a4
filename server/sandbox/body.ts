/**
 * The one body reader of the sandbox. Receives requests the way the gateway does: a JSON body
 * even under `application/x-www-form-urlencoded` (as the published samples send it), correctly
 * labelled JSON, genuine form bodies and multipart (parsing itself is the kit's `readWireBody`).
 * Bodies over the limit are refused with 413.
 */
import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../errors.js';
import { GATEWAY_ERROR_CODES } from '../gateway/codes.js';
import { readWireBody } from '../gateway/wire.js';
import { readBodyBytes } from '../read-body.js';
import { badInput, SandboxHttpError } from './http.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export type BodyKind = 'json' | 'form' | 'multipart' | 'empty';

export interface ParsedBody {
  fields: Record<string, unknown>;
  kind: BodyKind;
}

const tooLarge = (): SandboxHttpError =>
  new SandboxHttpError(413, GATEWAY_ERROR_CODES.invalidInput, 'body', `request body is larger than ${BODY_LIMIT_BYTES} bytes`);

const BODY_ERRORS = { tooLarge, incomplete: (): Error => new Error('aborted') };

/**
 * Form and multipart values carry nested objects and arrays as JSON text (capture_orders,
 * subscription, cart_items…); they are read back so validation and signatures see the same
 * shapes as in a JSON body. Anything that is not a JSON object or array stays text.
 */
function withJsonValues(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = value;
    if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) continue;
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'object' && parsed !== null) out[name] = parsed;
    } catch {
      // not JSON after all: keep the text
    }
  }
  return out;
}

/** Reads and parses the request body (once per request). */
export async function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<ParsedBody> {
  const preParsed: unknown = (req as { body?: unknown }).body;
  if (req.readableEnded && typeof preParsed === 'object' && preParsed !== null) {
    // A host app's own body parser already consumed the stream (the sandbox is mounted).
    return { fields: { ...(preParsed as Record<string, unknown>) }, kind: 'form' };
  }
  const raw = await readBodyBytes(req, limit, BODY_ERRORS);
  const contentType = req.headers['content-type'] ?? '';
  // Decoded once; only multipart needs the bytes themselves.
  const text = raw.toString('utf8');
  if (text.trim() === '') return { fields: {}, kind: 'empty' };
  const kind: BodyKind = /^multipart\/form-data/i.test(contentType) ? 'multipart' : text.trimStart().startsWith('{') ? 'json' : 'form';
  try {
    const fields = await readWireBody(kind === 'multipart' ? raw : text, contentType);
    return { fields: kind === 'json' ? fields : withJsonValues(fields), kind };
  } catch (cause) {
    if (cause instanceof ValidationError) throw badInput('body', `request body ${cause.issues[0]?.message ?? 'is unreadable'}`);
    throw badInput('body', kind === 'multipart' ? 'request body is not valid multipart/form-data' : 'request body is unreadable');
  }
}
