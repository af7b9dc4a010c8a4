/**
 * How the sandbox reads a request body the way the gateway does: a JSON body even under
 * `application/x-www-form-urlencoded` (as the published samples send it), correctly labelled
 * JSON, genuine form bodies, multipart (gateway-notes §3) and flat XML. The bytes come from the
 * shared reader (server/http); bodies over the limit are refused with 413.
 */
import type { IncomingMessage } from 'node:http';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { formEntries, isMultipart, readRequestBody } from '../../http/read-body.js';
import { badInput, SandboxHttpError } from '../http.js';
import { ERROR_CODES } from './codes.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export type BodyKind = 'json' | 'form' | 'multipart' | 'xml' | 'empty';

export interface ParsedBody {
  fields: Record<string, unknown>;
  kind: BodyKind;
  /** The Content-Type header as sent ('' when none). */
  contentType: string;
}

class UnreadableBody extends Error {}

const xmlParser = new XMLParser({ processEntities: false, parseTagValue: false, ignoreAttributes: true, ignoreDeclaration: true, maxNestedTags: 20 });

/**
 * A flat XML body (one root element whose children are the fields), as some published samples
 * of cancelsubscription send it. No DOCTYPE or entities; values stay strings.
 */
function parseXmlFields(text: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the parser alone accepts mismatched tags
  if (/<!DOCTYPE|<!ENTITY/i.test(text) || XMLValidator.validate(text) !== true) throw new UnreadableBody('is not well-formed XML');
  const document: unknown = xmlParser.parse(text);
  const root: unknown = typeof document === 'object' && document !== null ? Object.values(document as Record<string, unknown>)[0] : undefined;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) throw new UnreadableBody('must be one XML element holding the fields');
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(root as Record<string, unknown>)) {
    if (name === '__proto__' || name === 'constructor' || name === 'prototype') throw new UnreadableBody('names a forbidden element');
    out[name] = value;
  }
  return out;
}

/** JSON object whatever the label, multipart when labelled so, otherwise URL-encoded fields. */
async function parseFields(raw: Buffer, text: string, kind: BodyKind, contentType: string): Promise<Record<string, unknown>> {
  if (kind === 'multipart') {
    const out: Record<string, unknown> = {};
    // The last value of a repeated field wins, as in a URL-encoded body; file parts are no fields.
    for (const [key, value] of await formEntries(raw, contentType)) {
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }
  if (kind === 'xml') return parseXmlFields(text);
  if (kind === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UnreadableBody('is not a JSON object');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UnreadableBody('is not a JSON object');
    return parsed as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(text));
}

const tooLarge = (): SandboxHttpError =>
  new SandboxHttpError(413, ERROR_CODES.invalidInput, 'body', `request body is larger than ${BODY_LIMIT_BYTES} bytes`);

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
  const body = await readRequestBody(req, limit, BODY_ERRORS);
  const { contentType } = body;
  if (body.consumed) {
    // A host app's own body parser already consumed the stream (the sandbox is mounted).
    const fields = typeof body.parsed === 'object' && body.parsed !== null && !Buffer.isBuffer(body.parsed) ? { ...(body.parsed as Record<string, unknown>) } : {};
    return { fields, kind: 'form', contentType };
  }
  const { raw } = body;
  // Decoded once; only multipart needs the bytes themselves.
  const text = raw.toString('utf8');
  if (text.trim() === '') return { fields: {}, kind: 'empty', contentType };
  const kind: BodyKind = isMultipart(contentType)
    ? 'multipart'
    : text.trimStart().startsWith('{') ? 'json' : /^(application|text)\/xml\b/i.test(contentType) ? 'xml' : 'form';
  try {
    const fields = await parseFields(raw, text, kind, contentType);
    return { fields: kind === 'json' ? fields : withJsonValues(fields), kind, contentType };
  } catch (cause) {
    if (cause instanceof UnreadableBody) throw badInput('body', `request body ${cause.message}`);
    throw badInput('body', kind === 'multipart' ? 'request body is not valid multipart/form-data' : 'request body is unreadable');
  }
}
