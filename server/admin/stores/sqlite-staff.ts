/** The StaffStore half of the SQLite AdminStore (tables from 002_staff_sessions.sql). */
import type Database from 'better-sqlite3';
import { KitError } from '../../errors.js';
import type { StaffAccount, StaffStore } from '../staff-store.js';

interface StaffRow { id: string; name: string | null; password_hash: string; config_hash: string; password_changed_at: number }
interface SessionRow { id_hash: string; staff_id: string; created_at: number; expires_at: number }

export function createSqliteStaffStore(db: Database.Database, run: <T>(what: string, fn: () => T) => Promise<T>): StaffStore {
  const s = {
    getStaff: db.prepare<[string], StaffRow>('SELECT * FROM admin_staff WHERE id = ?'),
    upsertStaff: db.prepare(
      `INSERT INTO admin_staff (id, name, password_hash, config_hash, password_changed_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, password_hash = excluded.password_hash,
         config_hash = excluded.config_hash, password_changed_at = excluded.password_changed_at`,
    ),
    deleteSessionsOf: db.prepare('DELETE FROM admin_sessions WHERE staff_id = ?'),
    insertSession: db.prepare('INSERT INTO admin_sessions (id_hash, staff_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
    getSession: db.prepare<[string, number], SessionRow>('SELECT * FROM admin_sessions WHERE id_hash = ? AND expires_at > ?'),
    deleteSession: db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?'),
    deleteExpired: db.prepare('DELETE FROM admin_sessions WHERE expires_at <= ?'),
  };
  const toAccount = (row: StaffRow): StaffAccount => ({
    id: row.id,
    name: row.name,
    passwordHash: row.password_hash,
    configHash: row.config_hash,
    passwordChangedAt: new Date(row.password_changed_at),
  });
  const saveStaff = db.transaction((a: StaffAccount) => {
    const before = s.getStaff.get(a.id);
    if (before !== undefined && before.password_hash !== a.passwordHash) s.deleteSessionsOf.run(a.id);
    s.upsertStaff.run(a.id, a.name, a.passwordHash, a.configHash, a.passwordChangedAt.getTime());
  });

  return {
    getStaff: (id) =>
      run('read a staff account', () => {
        const row = s.getStaff.get(id);
        return row === undefined ? null : toAccount(row);
      }),
    saveStaff: (account) =>
      run('save a staff account', () => {
        saveStaff.immediate(account);
      }),
    createSession: (session) =>
      run('create a session', () => {
        if (s.getStaff.get(session.staffId) === undefined) throw new KitError('ERR_STORE', `No staff account ${session.staffId}`);
        s.insertSession.run(session.idHash, session.staffId, session.createdAt.getTime(), session.expiresAt.getTime());
      }),
    getSession: (idHash, now) =>
      run('read a session', () => {
        const row = s.getSession.get(idHash, now.getTime());
        return row === undefined ? null : { idHash: row.id_hash, staffId: row.staff_id, createdAt: new Date(row.created_at), expiresAt: new Date(row.expires_at) };
      }),
    deleteSession: (idHash) => run('delete a session', () => void s.deleteSession.run(idHash)),
    deleteExpiredSessions: (now) => run('delete expired sessions', () => s.deleteExpired.run(now.getTime()).changes),
  };
}
