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
import { compiled } from '../zod-compiled.js';

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

const DECLARATION_RE = /^<\?xml version="1\.0"(?: encoding="[A-Za-z][A-Za-z0-9._-]{0,39}")?\?>/;
/** An element this reader knows how to read: a plain name, no attributes, no whitespace. */
const ELEMENT_RE = /<(\/?)([A-Za-z_][A-Za-z0-9_.-]{0,99})(\/?)>/y;
const SPACE_RE = /[ \t\r\n]*/y;
/** Text with only the references decodeEntities decodes: any other `&` leaves it to the general path. */
const PLAIN_TEXT_RE = /^(?:[^&<]|&(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)*$/;

/**
 * The reply as the gateway writes it — an optional declaration, `<respon>`, one level of
 * elements holding text, `risk_reasons` holding name and status — read in one pass, with the
 * fields the general path would give. Returns null for anything else (comments, CDATA,
 * attributes, repeated or deeper elements, unusual references, stray text): the general path
 * then reads or refuses it, so this reader never accepts what that path refuses. The general
 * path's well-formedness check alone cost more than this whole reader.
 * Exported for the test that holds both paths to the same answers.
 */
export function readFlatRespon(text: string): Record<string, unknown> | null {
  let at = 0;
  const declaration = DECLARATION_RE.exec(text);
  if (declaration !== null) at = declaration[0].length;
  const space = (): void => {
    SPACE_RE.lastIndex = at;
    SPACE_RE.exec(text);
    at = SPACE_RE.lastIndex;
  };
  /** The tag at `at` (moving past it), or null when none is there. */
  const tag = (): { close: boolean; name: string; empty: boolean } | null => {
    ELEMENT_RE.lastIndex = at;
    const match = ELEMENT_RE.exec(text);
    if (match === null) return null;
    at = ELEMENT_RE.lastIndex;
    const close = match[1] === '/';
    const empty = match[3] === '/';
    return close && empty ? null : { close, name: match[2] ?? '', empty };
  };
  /** The text up to the next `<`, which must close `name`; null when it does not. */
  const textOf = (name: string): string | null => {
    const end = text.indexOf('<', at);
    if (end < 0) return null;
    const raw = text.slice(at, end);
    at = end;
    const closing = tag();
    if (closing === null || !closing.close || closing.name !== name || !PLAIN_TEXT_RE.test(raw)) return null;
    return decodeEntities(raw.trim());
  };

  space();
  const root = tag();
  if (root === null || root.close || root.name !== ROOT) return null;
  const fields: Record<string, unknown> = {};
  if (!root.empty) {
    for (;;) {
      space();
      const open = tag();
      if (open === null) return null;
      if (open.close) {
        if (open.name !== ROOT) return null;
        break;
      }
      if (FORBIDDEN_KEYS.has(open.name) || open.name in Object.prototype || (Object.hasOwn(fields, open.name) && open.name !== 'risk_reasons')) return null;
      if (open.name !== 'risk_reasons') {
        const value = open.empty ? '' : textOf(open.name);
        if (value === null) return null;
        fields[open.name] = value;
        continue;
      }
      const reasons = (fields.risk_reasons ??= []) as RiskReason[];
      if (open.empty) continue;
      const names: string[] = [];
      const statuses: string[] = [];
      for (;;) {
        space();
        const child = tag();
        if (child === null) return null;
        if (child.close) {
          if (child.name !== 'risk_reasons') return null;
          break;
        }
        if (child.name !== 'name' && child.name !== 'status') return null;
        const value = child.empty ? '' : textOf(child.name);
        if (value === null) return null;
        (child.name === 'name' ? names : statuses).push(value);
      }
      for (let i = 0; i < Math.max(names.length, statuses.length); i++) reasons.push({ name: names[i] ?? '', status: statuses[i] ?? '' });
    }
  }
  space();
  return at === text.length ? fields : null;
}

/**
 * Any well-formed reply, through the general XML parser after its well-formedness check: the
 * fields of `<respon>`, risk_reasons read in each published shape. Exported for the test that
 * holds both paths to the same answers.
 */
export function readGeneralRespon(text: string): Record<string, unknown> {
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
  return fields;
}

/** Parses and validates the authorise response. Throws ProtocolError ERR_PROTOCOL_MALFORMED. */
export function parseAuthoriseXml(text: string): AuthoriseResponse {
  if (typeof text !== 'string' || text.trim() === '') throw malformed('empty body');
  if (Buffer.byteLength(text, 'utf8') > MAX_XML_BYTES) throw malformed(`body exceeds ${MAX_XML_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw malformed('DOCTYPE and entity declarations are not accepted');
  const fields = readFlatRespon(text) ?? readGeneralRespon(text);
  const parsed = compiled(authoriseResponseSchema).safeParse(fields);
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
