import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SQLITE_PATH, createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { copyAssets } from '../../../scripts/copy-assets.js';
import { loadMigrations, migrationsDir } from '../../../server/orders/stores/sql/migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'order-store-sqlite-adapter-'));
const file = (name: string): string => join(dir, `${name}-${randomUUID()}.sqlite`);
const order = (overrides = {}) => ({ id: randomUUID(), orderNo: `sq-${randomUUID()}`, amount: 1500, currency: 'EUR', ...overrides });
const PAN = '4242424242424242';

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite store: files, pragmas and migrations', () => {
  it('creates missing directories and puts the file in WAL mode', async () => {
    const path = join(dir, 'nested', randomUUID(), 'orders.sqlite');
    const store = createSqliteStore({ path, busyTimeoutMs: 1234 });
    expect(existsSync(path)).toBe(true);
    await store.close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(DEFAULT_SQLITE_PATH).toBe('data/checkout.sqlite');
  });

  it('applies each migration once and records it', async () => {
    const path = file('migrate');
    await createSqliteStore({ path }).close();
    await createSqliteStore({ path }).close();
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT version, name FROM checkout_schema_migrations ORDER BY version').all();
    db.close();
    expect(rows).toEqual(loadMigrations('sqlite').map((m) => ({ version: m.version, name: m.name })));
  });

  it('works on a database it is given, sets busy_timeout and foreign keys, and leaves it open', async () => {
    const db = new Database(':memory:');
    const store = createSqliteStore({ database: db, busyTimeoutMs: 1234 });
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
    const created = await store.create(order());
    await store.close();
    expect(db.open).toBe(true);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.prepare('SELECT COUNT(*) AS n FROM checkout_orders WHERE id = ?').get(created.id)).toEqual({ n: 1 });
    db.close();
  });

  it('refuses conflicting or invalid options with ERR_CONFIG', () => {
    expect(() => createSqliteStore({ path: file('x'), database: new Database(':memory:') })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG' }),
    );
    expect(() => createSqliteStore({ path: file('y'), busyTimeoutMs: -1 })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });

  it('rejects with ERR_STORE once closed', async () => {
    const store = createSqliteStore({ path: file('closed') });
    await store.close();
    await expect(store.get('x')).rejects.toMatchObject({ code: 'ERR_STORE' });
  });

  it('ships its SQL where compiled modules look for it', () => {
    const out = mkdtempSync(join(tmpdir(), 'order-store-dist-'));
    try {
      const copied = copyAssets(join(process.cwd(), 'server'), out);
      const sqliteDir = join('orders', 'stores', 'sql', 'sqlite');
      expect(copied).toContain(join(sqliteDir, '001_orders.sql'));
      expect(copied).toContain(join('orders', 'stores', 'sql', 'postgres', '001_orders.sql'));
      expect(readFileSync(join(out, sqliteDir, '001_orders.sql'), 'utf8')).toBe(
        readFileSync(join(migrationsDir('sqlite'), '001_orders.sql'), 'utf8'),
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('SQLite store: stored representation', () => {
  it('stores amounts as INTEGER, data as JSON text and dates as epoch ms', async () => {
    const path = file('types');
    const store = createSqliteStore({ path });
    const createdAt = new Date('2024-01-02T03:04:05.678Z');
    const o = await store.create(order({ amount: Number.MAX_SAFE_INTEGER, createdAt, data: { k: 'ü' } }));
    await store.close();
    const db = new Database(path, { readonly: true });
    const row = db
      .prepare('SELECT typeof(amount) AS a, amount, typeof(data) AS d, data, typeof(created_at) AS c, created_at FROM checkout_orders WHERE id = ?')
      .get(o.id);
    db.close();
    expect(row).toEqual({ a: 'integer', amount: Number.MAX_SAFE_INTEGER, d: 'text', data: '{"k":"ü"}', c: 'integer', created_at: createdAt.getTime() });
  });

  it('has no column for card number, CVV or expiry and refuses a full card number as the masked card', async () => {
    const path = file('card');
    const store = createSqliteStore({ path });
    const o = await store.create(order());
    await expect(store.transition(o.id, 0, { state: 'paid', maskedCard: PAN })).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
      field: 'patch.maskedCard',
    });
    await expect(store.transition(o.id, 0, { maskedCard: '4242 4242 4242 4242' })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    expect(await store.get(o.id)).toMatchObject({ version: 0, state: 'created', maskedCard: null });
    const ok = await store.transition(o.id, 0, { state: 'paid', maskedCard: '424242******4242' });
    expect(ok.ok).toBe(true);
    await store.close();

    const db = new Database(path, { readonly: true });
    const columns = ['checkout_orders', 'checkout_order_events'].flatMap((t) =>
      (db.prepare(`SELECT name FROM pragma_table_info('${t}')`).all() as { name: string }[]).map((c) => c.name),
    );
    db.close();
    expect(columns).toContain('masked_card');
    expect(columns.filter((c) => /card_number|pan|cvv|cvc|security|expir/i.test(c))).toEqual([]);
    for (const suffix of ['', '-wal']) {
      if (existsSync(`${path}${suffix}`)) expect(readFileSync(`${path}${suffix}`).includes(PAN)).toBe(false);
    }
  });

  it('refuses fractional or negative amounts before writing', async () => {
    const store = createSqliteStore({ path: file('amounts') });
    await expect(store.create(order({ amount: 10.5 }))).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'order.amount' });
    const o = await store.create(order());
    await expect(store.transition(o.id, 0, { capturedAmount: -1 })).rejects.toMatchObject({ field: 'patch.capturedAmount' });
    expect(await store.list({ limit: 10 })).toHaveLength(1);
    await store.close();
  });
});
