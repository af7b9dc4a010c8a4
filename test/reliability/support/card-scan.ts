/**
 * The card-data scan: no card number, CVV or expiry in any stored row, log line or page. Card
 * numbers are found as digit runs (spaces and dashes allowed) equal to a number the suite typed,
 * or Luhn-valid with a card prefix; CVV and expiry as values under their field names.
 */
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { PgPoolLike } from '../../../server/orders/stores/postgres.js';
import { TEST_CARDS } from '../../../server/sandbox/index.js';
import { luhnValid as luhn } from '../../../server/card-number.js';

/** Every card number typed anywhere in the suite (test cards and fuzzed numbers). */
const TYPED = new Set<string>(Object.keys(TEST_CARDS));

export function rememberCard(number: string): void {
  const digits = number.replace(/[\s-]/g, '');
  if (/^\d{12,19}$/.test(digits)) TYPED.add(digits);
}


const DIGIT_RUN = /\d(?:[ -]?\d){11,18}/g;
const SENSITIVE_VALUE =
  /["']?\b(security_code|cvv2?|cvc|expiration_month|expiration_year|exp_month|exp_year|card_number|cardnumber)\b["']?\s*[:=]\s*["']?([^"'&,;\s}<]*)/gi;
const HARMLESS = new Set(['', '[REDACTED]', 'undefined', 'null', '%5BREDACTED%5D']);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Card data found in `text` (empty when clean). */
export function findCardData(raw: string): string[] {
  // A UUID whose first groups are all digits reads like a dashed card number: it is an id.
  const text = raw.replace(UUID, 'uuid');
  const found: string[] = [];
  for (const match of text.matchAll(DIGIT_RUN)) {
    const digits = match[0].replace(/[ -]/g, '');
    // Typed numbers anywhere; other Luhn-valid runs only standing alone (not in an id or a decimal fraction), with a card prefix and length.
    const alone = !/[A-Za-z0-9.]/.test(text[match.index - 1] ?? '') && !/[A-Za-z0-9]/.test(text[match.index + match[0].length] ?? '');
    if (TYPED.has(digits) || (alone && /^[3-6]\d{14,15}$/.test(digits) && luhn(digits) && !/^(\d)\1+$/.test(digits))) {
      found.push(`card number ${digits.slice(0, 6)}…${digits.slice(-4)} after "${text.slice(Math.max(0, match.index - 40), match.index).replace(/\d/g, '#')}"`);
    }
  }
  for (const match of text.matchAll(SENSITIVE_VALUE)) {
    const value = match[2] ?? '';
    if (!HARMLESS.has(value) && /\d/.test(value)) found.push(`${match[1] ?? ''} with a value`);
  }
  return found;
}

export class CardScanner {
  scanned = 0;
  readonly findings: string[] = [];

  text(where: string, text: string): void {
    this.scanned++;
    for (const f of findCardData(text)) this.findings.push(`${where}: ${f}`);
  }

  /** Every row of every table, plus the raw bytes of the file and its WAL (deleted rows too). */
  sqliteFile(path: string): void {
    if (!existsSync(path)) return;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
      for (const { name } of tables) {
        for (const row of db.prepare(`SELECT * FROM "${name}"`).iterate()) this.text(`${path} ${name}`, JSON.stringify(row));
      }
    } finally {
      db.close();
    }
    for (const file of [path, `${path}-wal`]) {
      if (existsSync(file)) this.text(`${file} (raw)`, readFileSync(file).toString('latin1'));
    }
  }

  /** Every row of every table in `schema`. */
  async postgres(pool: PgPoolLike, schema: string): Promise<void> {
    const tables = await pool.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
    for (const row of tables.rows as { table_name: string }[]) {
      const rows = await pool.query(`SELECT row_to_json(t)::text AS j FROM "${schema}"."${row.table_name}" t`, []);
      for (const r of rows.rows as { j: string }[]) this.text(`postgres ${schema}.${row.table_name}`, r.j);
    }
  }
}
