/**
 * One suite for every AdminStore adapter: memory, SQLite (a temp file per case) and PostgreSQL
 * (the server at TEST_DATABASE_URL, else in-process PGlite; a unique schema per case).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMemoryAdminStore, createPostgresAdminStore, createSqliteAdminStore,
  type AdminStore, type PayoutRecord, type AdminPgPool, type StaffStore,
} from '../../../server/admin/index.js';
import { loadMigrations } from '../../../server/admin/stores/migrations.js';
import { createPglitePool } from '../../helpers/pglite-pool.js';

interface Opened {
  store: AdminStore;
  /** Opens a second store over the same storage (a restart). */
  reopen: () => Promise<AdminStore>;
  cleanup: () => Promise<void>;
}

function payout(requestId: string, overrides: Partial<PayoutRecord> = {}): PayoutRecord {
  const at = new Date('2025-03-01T10:00:00.000Z');
  return {
    requestId, createdBy: 'kim', status: 'submitting', amount: 25_000, currency: 'EUR', beneficiary: 'Thé & Café — Ünïcode Ltd',
    reference: 'INV-1', transactionId: null, message: null,
    request: { request_id: requestId, beneficiary: { company_name: 'Thé & Café', address: { country_code: 'FR' } } },
    response: null, createdAt: at, updatedAt: at, ...overrides,
  };
}

function describeAdminStore(name: string, open: () => Promise<Opened>): void {
  describe(`AdminStore: ${name}`, () => {
    const withStore = (fn: (o: Opened) => Promise<void>) => async (): Promise<void> => {
      const opened = await open();
      try {
        await fn(opened);
      } finally {
        await opened.cleanup();
      }
    };

    it('creates a job with every order pending, in order, and refuses a second job with the same id', withStore(async ({ store }) => {
      const id = randomUUID();
      const created = await store.createJob({ id, action: 'capture', createdBy: 'gina', orderNos: ['B', 'A', 'C'], createdAt: new Date('2025-01-02T03:04:05.006Z') });
      expect(created).toMatchObject({ id, action: 'capture', createdBy: 'gina', status: 'running' });
      expect(created.createdAt).toEqual(new Date('2025-01-02T03:04:05.006Z'));
      expect(created.items.map((i) => [i.orderNo, i.status, i.message])).toEqual([['B', 'pending', null], ['A', 'pending', null], ['C', 'pending', null]]);
      expect(created.items[0]?.updatedAt).toBeInstanceOf(Date);
      await expect(store.createJob({ id, action: 'cancel', createdBy: 'x', orderNos: ['Z'] })).rejects.toMatchObject({ code: 'ERR_STORE' });
      expect((await store.getJob(id))?.items.map((i) => i.orderNo)).toEqual(['B', 'A', 'C']);
      expect(await store.getJob(randomUUID())).toBeNull();
    }));

    it('updates item statuses and messages; an absent message keeps, null clears, unknown orders are ignored', withStore(async ({ store }) => {
      const id = randomUUID();
      await store.createJob({ id, action: 'refund', createdBy: 'gina', orderNos: ['A', 'B', 'C'] });
      await store.updateJobItems(id, [{ orderNo: 'A', status: 'sent', message: null }, { orderNo: 'B', status: 'failed', message: 'not sent: state paid' }, { orderNo: 'NOPE', status: 'ok' }]);
      await store.updateJobItems(id, [{ orderNo: 'A', status: 'ok', message: 'now refunded' }, { orderNo: 'B', status: 'failed' }]);
      let job = await store.getJob(id);
      expect(job?.items.map((i) => [i.orderNo, i.status, i.message])).toEqual([
        ['A', 'ok', 'now refunded'], ['B', 'failed', 'not sent: state paid'], ['C', 'pending', null],
      ]);
      await store.updateJobItems(id, [{ orderNo: 'B', status: 'failed', message: null }]);
      job = await store.getJob(id);
      expect(job?.items[1]?.message).toBeNull();
      await store.setJobStatus(id, 'done');
      expect((await store.getJob(id))?.status).toBe('done');
    }));

    it('lists jobs newest first with counts, by status, with paging', withStore(async ({ store }) => {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      for (const [i, id] of ids.entries()) {
        await store.createJob({ id, action: 'capture', createdBy: 'gina', orderNos: ['A', 'B'], createdAt: new Date(Date.UTC(2025, 0, 1 + i)) });
      }
      await store.updateJobItems(ids[1]!, [{ orderNo: 'A', status: 'ok' }, { orderNo: 'B', status: 'failed', message: 'x' }]);
      await store.setJobStatus(ids[1]!, 'done');
      const all = await store.listJobs({ limit: 10 });
      expect(all.map((j) => j.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(all[1]).toMatchObject({ status: 'done', total: 2, counts: { pending: 0, sent: 0, ok: 1, failed: 1 } });
      expect(all[0]).toMatchObject({ total: 2, counts: { pending: 2, sent: 0, ok: 0, failed: 0 } });
      expect((await store.listJobs({ status: 'running', limit: 10 })).map((j) => j.id)).toEqual([ids[2], ids[0]]);
      expect((await store.listJobs({ limit: 1, offset: 1 })).map((j) => j.id)).toEqual([ids[1]]);
    }));

    it('keeps a 1000-order job and survives a restart', withStore(async ({ store, reopen }) => {
      const id = randomUUID();
      const orderNos = Array.from({ length: 1000 }, (_, i) => `ORD-${String(i).padStart(4, '0')}`);
      await store.createJob({ id, action: 'review_approve', createdBy: 'gina', orderNos });
      await store.updateJobItems(id, orderNos.slice(0, 300).map((orderNo) => ({ orderNo, status: 'sent' as const })));
      const again = await reopen();
      const job = await again.getJob(id);
      expect(job?.items).toHaveLength(1000);
      expect(job?.items.filter((i) => i.status === 'sent')).toHaveLength(300);
      expect(job?.items[999]?.orderNo).toBe('ORD-0999');
      if (again !== store) await again.close?.();
    }));

    it('saves a payout once per request id, even under concurrent saves, and updates it', withStore(async ({ store }) => {
      const requestId = randomUUID();
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => store.savePayout(payout(requestId, { reference: `attempt-${i}` }))));
      expect(results.filter((r) => r.saved)).toHaveLength(1);
      const winner = results.find((r) => r.saved);
      const stored = await store.getPayout(requestId);
      expect(stored?.reference).toBe(winner?.saved === true ? winner.payout.reference : '');
      expect(stored).toMatchObject({ amount: 25_000, currency: 'EUR', beneficiary: 'Thé & Café — Ünïcode Ltd', status: 'submitting' });
      expect(stored?.request).toEqual({ request_id: requestId, beneficiary: { company_name: 'Thé & Café', address: { country_code: 'FR' } } });
      expect(stored?.createdAt).toEqual(new Date('2025-03-01T10:00:00.000Z'));

      const updated = await store.updatePayout(requestId, { status: 'completed', transactionId: 'TX1', message: 'COMPLETED', response: { status: 'COMPLETED', fee_amount: 1.5 } });
      expect(updated).toMatchObject({ status: 'completed', transactionId: 'TX1', message: 'COMPLETED', response: { status: 'COMPLETED', fee_amount: 1.5 }, reference: stored?.reference });
      const again = await store.savePayout(payout(requestId));
      expect(again).toMatchObject({ saved: false, existing: { status: 'completed', transactionId: 'TX1' } });
      expect(await store.updatePayout(randomUUID(), { status: 'failed' })).toBeNull();
      expect(await store.getPayout(randomUUID())).toBeNull();
    }));

    it('lists payouts newest first and keeps large amounts exact', withStore(async ({ store }) => {
      const a = randomUUID();
      const b = randomUUID();
      await store.savePayout(payout(a, { createdAt: new Date('2025-01-01T00:00:00Z'), amount: Number.MAX_SAFE_INTEGER }));
      await store.savePayout(payout(b, { createdAt: new Date('2025-02-01T00:00:00Z'), amount: 0 }));
      const list = await store.listPayouts({ limit: 10 });
      expect(list.map((p) => p.requestId)).toEqual([b, a]);
      expect(list[1]?.amount).toBe(Number.MAX_SAFE_INTEGER);
      expect((await store.listPayouts({ limit: 1, offset: 1 })).map((p) => p.requestId)).toEqual([a]);
    }));

    it('finds a payout by its gateway transaction id', withStore(async ({ store }) => {
      const requestId = randomUUID();
      await store.savePayout(payout(requestId));
      expect(await store.getPayoutByTransactionId('TX-P1')).toBeNull();
      await store.updatePayout(requestId, { transactionId: 'TX-P1' });
      expect((await store.getPayoutByTransactionId('TX-P1'))?.requestId).toBe(requestId);
    }));

    it('keeps an unmatched notification once per dedupe key, newest first, and across a restart', withStore(async ({ store, reopen }) => {
      const note = (key: string, at: string) => ({
        dedupeKey: key, kind: 'unrecognised', type: 'settlement', orderNo: 'NO-1', transactionId: null, problem: 'unknown webhooks_type "settlement"',
        summary: { webhooks_type: 'settlement', amount: '1.00' }, receivedAt: new Date(at),
      });
      expect(await store.recordNotification(note('k1', '2025-01-01T00:00:00Z'))).toBe(true);
      expect(await store.recordNotification(note('k1', '2025-01-03T00:00:00Z'))).toBe(false);
      expect(await store.recordNotification(note('k2', '2025-01-02T00:00:00Z'))).toBe(true);
      const list = await (await reopen()).listNotifications({ limit: 10 });
      expect(list.map((n) => n.dedupeKey)).toEqual(['k2', 'k1']);
      expect(list[1]).toEqual(note('k1', '2025-01-01T00:00:00Z'));
      expect((await store.listNotifications({ limit: 1, offset: 1 })).map((n) => n.dedupeKey)).toEqual(['k1']);
    }));

    it('keeps staff accounts and hashed sessions; a new password hash ends the account\'s sessions, expiry hides and purges them', withStore(async ({ store: admin, reopen }) => {
      const store = admin as AdminStore & StaffStore;
      const at = new Date('2025-04-01T08:00:00.000Z');
      const later = new Date(at.getTime() + 60_000);
      const account = { id: 'kim', name: 'Kim', passwordHash: 'scrypt$15$8$1$aaaa', configHash: 'scrypt$15$8$1$aaaa', passwordChangedAt: at };
      await store.saveStaff(account);
      await store.saveStaff({ id: 'gina', name: null, passwordHash: 'h-gina', configHash: 'h-gina', passwordChangedAt: at });
      expect(await store.getStaff('kim')).toEqual(account);
      expect(await store.getStaff('nobody')).toBeNull();
      await expect(store.createSession({ idHash: 'x', staffId: 'nobody', createdAt: at, expiresAt: later })).rejects.toMatchObject({ code: 'ERR_STORE' });

      await store.createSession({ idHash: 'kim-1', staffId: 'kim', createdAt: at, expiresAt: later });
      await store.createSession({ idHash: 'kim-2', staffId: 'kim', createdAt: at, expiresAt: new Date(at.getTime() + 1000) });
      await store.createSession({ idHash: 'gina-1', staffId: 'gina', createdAt: at, expiresAt: later });
      expect(await store.getSession('kim-1', at)).toEqual({ idHash: 'kim-1', staffId: 'kim', createdAt: at, expiresAt: later });
      // Expired at or before now: never returned.
      expect(await store.getSession('kim-2', new Date(at.getTime() + 1000))).toBeNull();
      expect(await store.getSession('kim-2', at)).not.toBeNull();

      // The same hash (a name change) keeps the sessions; a new hash ends them, only the account's.
      await store.saveStaff({ ...account, name: 'Kim K.' });
      expect(await store.getSession('kim-1', at)).not.toBeNull();
      await store.saveStaff({ ...account, passwordHash: 'scrypt$15$8$1$bbbb', passwordChangedAt: later });
      expect(await store.getSession('kim-1', at)).toBeNull();
      expect(await store.getSession('kim-2', at)).toBeNull();
      expect(await store.getSession('gina-1', at)).not.toBeNull();
      expect((await store.getStaff('kim'))?.passwordHash).toBe('scrypt$15$8$1$bbbb');

      await store.createSession({ idHash: 'kim-3', staffId: 'kim', createdAt: at, expiresAt: new Date(at.getTime() + 1000) });
      await store.deleteSession('gina-1');
      expect(await store.getSession('gina-1', at)).toBeNull();
      const again = (await reopen()) as AdminStore & StaffStore;
      expect((await again.getSession('kim-3', at))?.staffId).toBe('kim');
      expect(await again.deleteExpiredSessions(later)).toBe(1);
      expect(await again.getSession('kim-3', at)).toBeNull();
    }));

    it('returns fresh copies: changing a read changes nothing stored', withStore(async ({ store }) => {
      const id = randomUUID();
      await store.createJob({ id, action: 'capture', createdBy: 'gina', orderNos: ['A'] });
      const read = await store.getJob(id);
      read!.items[0]!.status = 'ok';
      expect((await store.getJob(id))?.items[0]?.status).toBe('pending');
    }));
  });
}

describeAdminStore('memory', () => {
  const store = createMemoryAdminStore();
  return Promise.resolve({ store, reopen: () => Promise.resolve(store), cleanup: () => Promise.resolve() });
});

describeAdminStore('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'admin-store-'));
  const path = join(dir, 'nested', 'admin.sqlite');
  const store = createSqliteAdminStore({ path });
  return Promise.resolve({
    store,
    reopen: () => Promise.resolve(createSqliteAdminStore({ path })),
    cleanup: async () => {
      await store.close?.();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

describe('AdminStore: SQLite on a shared connection', () => {
  it('uses the shop database as given, applies its migration once and leaves the connection open', async () => {
    const db = new Database(':memory:');
    const first = createSqliteAdminStore({ database: db });
    await first.createJob({ id: 'j1', action: 'capture', createdBy: 'gina', orderNos: ['A'] });
    const second = createSqliteAdminStore({ database: db });
    expect((await second.getJob('j1'))?.items).toHaveLength(1);
    // Each migration file applied once.
    expect(db.prepare('SELECT COUNT(*) AS n FROM admin_schema_migrations').get()).toEqual({ n: loadMigrations('sqlite').length });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    expect(tables.map((t) => t.name).every((n) => n.startsWith('admin_'))).toBe(true);
    await second.close?.();
    expect(db.open).toBe(true);
    db.close();
  });
});

const url = process.env.TEST_DATABASE_URL;
let shared: Promise<AdminPgPool> | undefined;
const pool = (): Promise<AdminPgPool> => (shared ??= url ? Promise.resolve(new pg.Pool({ connectionString: url, max: 4 })) : createPglitePool());
afterAll(async () => {
  if (shared) await (await shared).end?.();
});

describeAdminStore(`PostgreSQL (${url ? 'server' : 'PGlite'})`, async () => {
  const p = await pool();
  const schema = `admin_t_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const store = await createPostgresAdminStore({ pool: p, schema });
  return {
    store,
    reopen: () => createPostgresAdminStore({ pool: p, schema }),
    cleanup: async () => {
      await p.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
});

describe('AdminStore: PostgreSQL migrations', () => {
  it('applies once when two instances start together, and refuses a schema name that is not an identifier', async () => {
    const p = await pool();
    const schema = `admin_m_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const [a, b] = await Promise.all([createPostgresAdminStore({ pool: p, schema }), createPostgresAdminStore({ pool: p, schema })]);
    await a.createJob({ id: 'j', action: 'cancel', createdBy: 'x', orderNos: ['A'] });
    expect((await b.getJob('j'))?.action).toBe('cancel');
    const { rows } = await p.query(`SELECT version FROM "${schema}".admin_schema_migrations ORDER BY version`);
    expect(rows.map((r) => (r as { version: number }).version)).toEqual(loadMigrations('postgres').map((m) => m.version));
    await p.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await expect(createPostgresAdminStore({ pool: p, schema: 'bad"; drop' })).rejects.toMatchObject({ code: 'ERR_CONFIG', option: 'schema' });
  });
});
