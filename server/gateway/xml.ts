/**
 * The XML `respon` of /v1/authorise. Parsing is deliberately narrow: no DOCTYPE, no entity
 * expansion (only the five predefined entities and character references are decoded, in one
 * pass), no prototype keys, a size limit, one root named `respon`, and every value kept as a
 * string ("0000" stays "0000"). Anything else is ERR_PROTOCOL_MALFORMED.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ProtocolError } from '../errors.js';
import { zodIssuesToFields } from './schemas/common.js';
import { authoriseResponseSchema, type AuthoriseResponse, type RiskReason } from './schemas/responses.js';

export const MAX_XML_BYTES = 64 * 1024;
const ROOT = 'respon';
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const SAFE_TAG_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

const parser = new XMLParser({
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  maxNestedTags: 20,
  isArray: (_name, jPath) => jPath === `${ROOT}.risk_reasons`,
});

function malformed(reason: string): ProtocolError {
  return new ProtocolError('ERR_PROTOCOL_MALFORMED', `Malformed authorise response: ${reason}`);
}

const ENTITY_RE = /&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});/g;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** One pass, so "&amp;lt;" becomes "&lt;" and nothing expands further. */
function decodeEntities(value: string): string {
  return value.replace(ENTITY_RE, (whole, name: string) => {
    const named = NAMED[name];
    if (named !== undefined) return named;
    const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) checkKeys(v);
  } else if (isRecord(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw malformed(`element name "${key}" is not allowed`);
      checkKeys(v);
    }
  }
}

function leaf(value: unknown, what: string): string {
  if (typeof value !== 'string') throw malformed(`${what} must be text`);
  return decodeEntities(value);
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/**
 * `risk_reasons` arrives as repeated `<risk_reasons><name/><status/></risk_reasons>`, as one
 * element holding several name/status pairs, or wrapping one child element per reason.
 */
function readRiskReasons(value: unknown): RiskReason[] {
  const out: RiskReason[] = [];
  for (const entry of asList(value)) {
    if (entry === '') continue;
    if (!isRecord(entry)) throw malformed('risk_reasons must hold name and status elements');
    if ('name' in entry || 'status' in entry) {
      const names = asList(entry.name);
      const statuses = asList(entry.status);
      for (let i = 0; i < Math.max(names.length, statuses.length); i++) {
        out.push({ name: leaf(names[i] ?? '', 'risk_reasons.name'), status: leaf(statuses[i] ?? '', 'risk_reasons.status') });
      }
      continue;
    }
    for (const child of Object.values(entry)) out.push(...readRiskReasons(asList(child)));
  }
  return out;
}

/** Parses and validates the authorise response. Throws ProtocolError ERR_PROTOCOL_MALFORMED. */
export function parseAuthoriseXml(text: string): AuthoriseResponse {
  if (typeof text !== 'string' || text.trim() === '') throw malformed('empty body');
  if (Buffer.byteLength(text, 'utf8') > MAX_XML_BYTES) throw malformed(`body exceeds ${MAX_XML_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw malformed('DOCTYPE and entity declarations are not accepted');
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the parser alone accepts mismatched tags
  if (XMLValidator.validate(text) !== true) throw malformed('not well-formed XML');

  let document: unknown;
  try {
    document = parser.parse(text);
  } catch (cause) {
    throw new ProtocolError('ERR_PROTOCOL_MALFORMED', 'Malformed authorise response: unsafe or unreadable XML', { cause });
  }
  if (!isRecord(document)) throw malformed('no root element');
  const roots = Object.keys(document);
  if (roots.length !== 1 || roots[0] !== ROOT) throw malformed(`root element must be <${ROOT}>`);
  checkKeys(document);

  const root = document[ROOT];
  if (root !== '' && !isRecord(root)) throw malformed(`<${ROOT}> must contain elements`);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(root === '' ? {} : root)) {
    if (key === 'risk_reasons') fields[key] = readRiskReasons(value);
    else if (typeof value === 'string') fields[key] = decodeEntities(value);
    else fields[key] = value; // left for the schema to refuse if it is a known element
  }
  const parsed = authoriseResponseSchema.safeParse(fields);
  if (!parsed.success) {
    const issues = zodIssuesToFields(parsed.error);
    throw new ProtocolError(
      'ERR_PROTOCOL_MALFORMED',
      `Malformed authorise response: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}`,
      { details: { issues } },
    );
  }
  return parsed.data;
}

export type ResponXmlFields = Readonly<Record<string, string | readonly RiskReason[] | undefined>>;

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&apos;', '"': '&quot;' };
const NEEDS_ESCAPE_RE = /[&<>'"]/;
const ESCAPE_RE = /[&<>'"]/g;

/** Element text with all five predefined entities, as XML builders write it. */
function escapeText(value: string): string {
  return NEEDS_ESCAPE_RE.test(value) ? value.replace(ESCAPE_RE, (c) => TEXT_ESCAPES[c] ?? c) : value;
}

/**
 * Builds `<?xml …?><respon>…</respon>` from string fields (undefined ones are left out);
 * `risk_reasons` becomes one `<risk_reasons>` element per reason. Text is escaped. Written as
 * one string in field order: a flat document needs no general builder, whose per-node work cost
 * more than the rest of an authorise reply.
 */
export function buildResponXml(fields: ResponXmlFields): string {
  let xml = `<?xml version="1.0" encoding="UTF-8"?><${ROOT}>`;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined) continue;
    if (!SAFE_TAG_RE.test(key) || FORBIDDEN_KEYS.has(key)) throw malformed(`"${key}" is not a safe element name`);
    if (typeof value === 'string') {
      xml += `<${key}>${escapeText(value)}</${key}>`;
      continue;
    }
    for (const reason of value) {
      xml += `<${key}><name>${escapeText(reason.name)}</name><status>${escapeText(reason.status)}</status></${key}>`;
    }
  }
  return `${xml}</${ROOT}>`;
}
