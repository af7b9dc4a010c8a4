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
/** Text with only the references decodeEntities decodes: any other `&` leaves it to the general path. */
const PLAIN_TEXT_RE = /^(?:[^&<]|&(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)*$/;
/** The longest element name the reader takes (as SAFE_TAG_RE). */
const MAX_NAME = 100;

/** `[A-Za-z_]` */
const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
/** `[A-Za-z0-9_.-]` */
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;

/**
 * The element names of the usual reply, by length. A name read from the reply is looked up here
 * by comparing characters in place, so the fields object is keyed by these strings: a name cut
 * out of each reply is a new string, and every lookup or store with it hashed it afresh.
 */
const KNOWN_NAMES: ReadonlyMap<number, readonly string[]> = ((): Map<number, string[]> => {
  const byLength = new Map<number, string[]>();
  for (const name of [ROOT, 'name', 'status', ...Object.keys(authoriseResponseSchema.shape)]) {
    const list = byLength.get(name.length) ?? [];
    if (!list.includes(name)) list.push(name);
    byLength.set(name.length, list);
  }
  return byLength;
})();

/**
 * The flat reader's position in the reply and the last tag it read. Character codes instead of
 * sticky regular expressions: a match array per tag and per run of spaces cost more than reading.
 */
/** What `FlatCursor.tag` read: nothing it takes, `<name>`, `</name>` or `<name/>`. */
const NO_TAG = 0;
const OPEN = 1;
const CLOSE = 2;
const EMPTY = 3;
type TagKind = typeof NO_TAG | typeof OPEN | typeof CLOSE | typeof EMPTY;

class FlatCursor {
  at = 0;
  /** Where the last tag's name is. */
  #nameStart = 0;
  #nameEnd = 0;
  constructor(readonly text: string) {}

  /** Moves past `[ \t\r\n]*`. */
  space(): void {
    const { text } = this;
    let at = this.at;
    for (let c = text.charCodeAt(at); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(at)) at++;
    this.at = at;
  }

  /**
   * Reads `<name>`, `</name>` or `<name/>` at the position, as `<(\/?)([A-Za-z_][A-Za-z0-9_.-]{0,99})(\/?)>`
   * (not `</name/>`), and moves past it; NO_TAG, without moving, when none is there.
   */
  tag(): TagKind {
    const { text } = this;
    let at = this.at;
    if (text.charCodeAt(at) !== 60) return NO_TAG; // <
    at++;
    const close = text.charCodeAt(at) === 47; // /
    if (close) at++;
    const start = at;
    if (!isNameStart(text.charCodeAt(at))) return NO_TAG;
    at++;
    while (at - start < MAX_NAME && isNameChar(text.charCodeAt(at))) at++;
    const end = at;
    const empty = text.charCodeAt(at) === 47;
    if (empty) at++;
    if (text.charCodeAt(at) !== 62 || (close && empty)) return NO_TAG; // >
    this.at = at + 1;
    this.#nameStart = start;
    this.#nameEnd = end;
    return close ? CLOSE : empty ? EMPTY : OPEN;
  }

  /** Whether the last tag's name is `name`. */
  nameIs(name: string): boolean {
    return this.#nameEnd - this.#nameStart === name.length && this.text.startsWith(name, this.#nameStart);
  }

  /** The last tag's name: the known string when it is one. */
  name(): string {
    const known = KNOWN_NAMES.get(this.#nameEnd - this.#nameStart);
    if (known !== undefined) for (const name of known) if (this.text.startsWith(name, this.#nameStart)) return name;
    return this.text.slice(this.#nameStart, this.#nameEnd);
  }

  /** The text up to the next `<`, which must close `name`; null when it does not. */
  textOf(name: string): string | null {
    const { text } = this;
    const start = this.at;
    const end = text.indexOf('<', start);
    if (end < 0) return null;
    this.at = end;
    if (this.tag() !== CLOSE || !this.nameIs(name)) return null;
    const raw = text.slice(start, end);
    if (!raw.includes('&')) return raw.trim();
    return PLAIN_TEXT_RE.test(raw) ? decodeEntities(raw.trim()) : null;
  }
}

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
  const cursor = new FlatCursor(text);
  const declaration = DECLARATION_RE.exec(text);
  if (declaration !== null) cursor.at = declaration[0].length;
  cursor.space();
  const root = cursor.tag();
  if ((root !== OPEN && root !== EMPTY) || !cursor.nameIs(ROOT)) return null;
  const fields: Record<string, unknown> = {};
  if (root === OPEN) {
    for (;;) {
      cursor.space();
      const open = cursor.tag();
      if (open === NO_TAG) return null;
      if (open === CLOSE) {
        if (!cursor.nameIs(ROOT)) return null;
        break;
      }
      const name = cursor.name();
      if (FORBIDDEN_KEYS.has(name) || name in Object.prototype || (Object.hasOwn(fields, name) && name !== 'risk_reasons')) return null;
      if (name !== 'risk_reasons') {
        const value = open === EMPTY ? '' : cursor.textOf(name);
        if (value === null) return null;
        fields[name] = value;
        continue;
      }
      const reasons = (fields.risk_reasons ??= []) as RiskReason[];
      if (open === EMPTY) continue;
      const names: string[] = [];
      const statuses: string[] = [];
      for (;;) {
        cursor.space();
        const tag = cursor.tag();
        if (tag === NO_TAG) return null;
        if (tag === CLOSE) {
          if (!cursor.nameIs('risk_reasons')) return null;
          break;
        }
        const child = cursor.nameIs('name') ? 'name' : cursor.nameIs('status') ? 'status' : null;
        if (child === null) return null;
        const value = tag === EMPTY ? '' : cursor.textOf(child);
        if (value === null) return null;
        (child === 'name' ? names : statuses).push(value);
      }
      for (let i = 0; i < Math.max(names.length, statuses.length); i++) reasons.push({ name: names[i] ?? '', status: statuses[i] ?? '' });
    }
  }
  cursor.space();
  return cursor.at === text.length ? fields : null;
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
  // Most replies have no `<!` at all: looking for it is cheaper than the case-blind search.
  if (text.includes('<!') && /<!DOCTYPE|<!ENTITY/i.test(text)) throw malformed('DOCTYPE and entity declarations are not accepted');
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
