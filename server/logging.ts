import { luhnValid } from './card-number.js';

/**
 * The one redacting logger. Everything the kit logs passes through `redact`, which removes card
 * number, CVV, expiry and secrets by field name and masks anything that looks like a card number
 * in free text. The logger interface is pino-compatible, so a shop can pass its pino instance.
 */

export interface Logger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
  /** As pino's: false for a level the logger drops, so nothing is built or redacted for it. */
  isLevelEnabled?(level: string): boolean;
}

const SECRET_FIELDS = new Set([
  'card', 'card_number', 'cardnumber', 'cardno', 'pan', 'number',
  'security_code', 'cvv', 'cvc', 'cvv2', 'cardsecuritycode',
  'expiration_month', 'expiration_year', 'expiry', 'exp_month', 'exp_year', 'cardexpiremonth', 'cardexpireyear',
  'sign_key', 'signkey', 'signkeys', 'verifykeys', 'password', 'secret', 'authorization', 'cookie',
]);
/**
 * Stored-card tokens stand in for a card: only their last four characters are ever logged, so a
 * log line can still be matched to a saved card without the line being able to charge it.
 */
const TOKEN_FIELDS = new Set(['token_id', 'tokenid', 'paymenttoken']);
/** A token in free text (a logged XML or form body): `<token_id>…`, `"token_id":"…"`, `token_id=…`. */
const TOKEN_IN_TEXT_RE = /(token_?id|paymenttoken)(>|"\s*:\s*"|=)([^<"&\s]{1,200})/gi;
const TOKEN_NAME_RE = /token_?id|paymenttoken/i;

/** Masks every token value written in free text to its last four characters. */
export function maskTokens(text: string): string {
  return TOKEN_NAME_RE.test(text) ? text.replace(TOKEN_IN_TEXT_RE, (_m, name: string, sep: string, value: string) => `${name}${sep}${maskToken(value)}`) : text;
}

/** Matches JSON text holding a key `redact` removes or masks, whatever the case. */
const SECRET_KEY_IN_JSON_RE = new RegExp(`"(?:${[...SECRET_FIELDS, ...TOKEN_FIELDS].join('|')})":`, 'i');

/** A token with all but its last four characters hidden (`…4f2a`); short or empty values are hidden whole. */
export function maskToken(token: string): string {
  return token.length > 8 ? `…${token.slice(-4)}` : token === '' ? '' : '[REDACTED]';
}
/** Any run of 13+ digits (spaces or dashes between), wider than what maskCardNumbers looks at. */
const ANY_DIGIT_RUN_RE = /\d(?:[ -]?\d){12}/;

/**
 * True when `redact(JSON.parse(json))` would change nothing: no secret key, no digit run that
 * maskCardNumbers would mask, not nested deep enough to be cut. A cheap test on text already
 * serialised, so the common case (event data without anything secret, gateway transaction ids
 * included) skips the deep copy.
 */
export function jsonNeedsNoRedaction(json: string): boolean {
  // Tested on the lower-cased text, as redact lower-cases keys: /i alone never matches the Kelvin
  // sign (U+212A) to k, so a key `sign_\u212Aey` would have skipped the redaction it needs.
  const lower = json.toLowerCase();
  if (SECRET_KEY_IN_JSON_RE.test(lower) || TOKEN_NAME_RE.test(lower)) return false;
  if (json.includes('\\')) {
    // An escape (\n, \u…) ends in a letter or digit in the text but not in the string it stands
    // for, so the boundary maskCardNumbers checks reads differently: judge any long run as a hit.
    if (ANY_DIGIT_RUN_RE.test(json)) return false;
  } else if (hasCardNumber(json)) {
    // Without escapes every string appears verbatim between quotes, so the same runs match.
    return false;
  }
  let open = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if ((c === 123 || c === 91) && ++open > 12) return false;
  }
  return true;
}

/**
 * The common case of jsonNeedsNoRedaction without any text: a plain object of strings, finite
 * numbers, booleans and nulls that redact would leave as it is. Returns the copy a JSON round trip
 * would give (keys of undefined dropped), or null when it cannot tell (anything nested, a secret
 * or token key, a value maskCardNumbers or maskTokens would change), for the full path to judge.
 * Serialising, testing and parsing a handful of fields cost ~7 µs per call; this ~1.
 */
export function flatCopyNeedingNoRedaction(value: Record<string, unknown>): Record<string, unknown> | null {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return null;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const lower = key.toLowerCase();
    if (key === '__proto__' || SECRET_FIELDS.has(lower) || TOKEN_FIELDS.has(lower) || TOKEN_NAME_RE.test(key)) return null;
    const v = value[key];
    if (typeof v === 'string') {
      if (TOKEN_NAME_RE.test(v) || (ANY_DIGIT_RUN_RE.test(v) && hasCardNumber(v))) return null;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v) || Object.is(v, -0)) return null;
    } else if (v === undefined) {
      continue;
    } else if (typeof v !== 'boolean' && v !== null) {
      return null;
    }
    out[key] = v;
  }
  return out;
}

/** Masked card numbers the gateway returns are safe to keep under these names. */
const MASKED_CARD_RE = /^\d{4,6}\*{2,}\d{4}$/;
// Not inside an identifier: the gateway's transaction ids (SBX20261121052009…) carry long digit runs.
const DIGIT_RUN_RE = /(?<![A-Za-z0-9])\d(?:[ -]?\d){12,18}/g;

/** A run DIGIT_RUN_RE found that is a card number: its digits pass the Luhn check. */
const isCardRun = (run: string): boolean => luhnValid(run.replace(/[ -]/g, ''));

function hasCardNumber(text: string): boolean {
  for (const match of text.matchAll(DIGIT_RUN_RE)) {
    if (isCardRun(match[0])) return true;
  }
  return false;
}

/** Masks every run of 13–19 digits (spaces or dashes allowed, not glued to a letter before it) that passes the Luhn check. */
export function maskCardNumbers(text: string): string {
  return text.replace(DIGIT_RUN_RE, (run) => (isCardRun(run) ? '[REDACTED CARD]' : run));
}

/** A deep copy with secrets removed; safe to log, throw or store. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 12) return '[TOO DEEP]';
  if (typeof value === 'string') return maskTokens(maskCardNumbers(value));
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof URLSearchParams) return redact(Object.fromEntries(value), depth + 1);
  if (value instanceof Error) {
    return { name: value.name, message: maskCardNumbers(value.message), ...(redact(Object.fromEntries(Object.entries(value)), depth + 1) as object) };
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const lower = key.toLowerCase();
      if (SECRET_FIELDS.has(lower)) {
        out[key] = typeof v === 'string' && MASKED_CARD_RE.test(v) ? v : v === undefined || v === '' ? v : '[REDACTED]';
      } else if (TOKEN_FIELDS.has(lower)) {
        out[key] = typeof v === 'string' ? maskToken(v) : v === undefined || v === null ? v : '[REDACTED]';
      } else {
        out[key] = redact(v, depth + 1);
      }
    }
    return out;
  }
  return value;
}

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * Wraps any pino-compatible logger so every object passes through `redact` first. A level the
 * logger reports disabled (pino's `isLevelEnabled`, asked on every call since pino's level can
 * change) is dropped before redaction: the engine logs a debug line per fact, and a deep copy
 * of it per notification is wasted on a logger at `info`.
 */
export function redactingLogger(inner: Logger): Logger {
  const enabled = (level: Level): boolean => typeof inner.isLevelEnabled !== 'function' || inner.isLevelEnabled(level);
  const wrap =
    (level: Level) =>
    (obj: Record<string, unknown>, msg?: string): void => {
      if (!enabled(level)) return;
      inner[level](redact(obj) as Record<string, unknown>, msg === undefined ? undefined : maskTokens(maskCardNumbers(msg)));
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error'), isLevelEnabled: (level) => enabled(level as Level) };
}

/** Logs nothing. The default, so the kit is silent unless the shop passes a logger. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** JSON lines on stderr at or above `level`, redacted. Used by the demo store and the sandbox. */
export function consoleLogger(level: Level = 'info'): Logger {
  const order: string[] = ['debug', 'info', 'warn', 'error'];
  const min = order.indexOf(level);
  const write =
    (lvl: Level) =>
    (obj: Record<string, unknown>, msg?: string): void => {
      process.stderr.write(`${JSON.stringify({ level: lvl, time: new Date().toISOString(), msg, ...obj })}\n`);
    };
  return redactingLogger({
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    isLevelEnabled: (lvl) => order.indexOf(lvl) >= min,
  });
}
