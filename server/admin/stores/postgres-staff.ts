/** The StaffStore half of the PostgreSQL AdminStore (tables from 002_staff_sessions.sql). */
import { KitError } from '../../errors.js';
import type { StaffAccount, StaffStore } from '../staff-store.js';

interface StaffRow { id: string; name: string | null; password_hash: string; config_hash: string; password_changed_at: Date }
interface SessionRow { id_hash: string; staff_id: string; created_at: Date; expires_at: Date }

type Rows = <T>(what: string, text: string, values?: unknown[]) => Promise<T[]>;

export function createPostgresStaffStore(rows: Rows, t: (name: string) => string): StaffStore {
  return {
    async getStaff(id) {
      const [row] = await rows<StaffRow>('read a staff account', `SELECT * FROM ${t('admin_staff')} WHERE id = $1`, [id]);
      if (row === undefined) return null;
      return {
        id: row.id,
        name: row.name,
        passwordHash: row.password_hash,
        configHash: row.config_hash,
        passwordChangedAt: new Date(row.password_changed_at),
      };
    },
    async saveStaff(a: StaffAccount) {
      // One statement: the sessions go exactly when the stored hash changes, atomically. The
      // sub-select in RETURNING reads the row as it was before this statement.
      await rows('save a staff account',
        `WITH saved AS (
           INSERT INTO ${t('admin_staff')} (id, name, password_hash, config_hash, password_changed_at)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, password_hash = EXCLUDED.password_hash,
             config_hash = EXCLUDED.config_hash, password_changed_at = EXCLUDED.password_changed_at
           RETURNING (SELECT s.password_hash FROM ${t('admin_staff')} s WHERE s.id = $1) AS old_hash)
         DELETE FROM ${t('admin_sessions')} WHERE staff_id = $1
           AND EXISTS (SELECT 1 FROM saved WHERE old_hash IS NOT NULL AND old_hash <> $3)`,
        [a.id, a.name, a.passwordHash, a.configHash, a.passwordChangedAt]);
    },
    async createSession(s) {
      const inserted = await rows('create a session',
        `INSERT INTO ${t('admin_sessions')} (id_hash, staff_id, created_at, expires_at)
         SELECT $1, id, $3, $4 FROM ${t('admin_staff')} WHERE id = $2 RETURNING 1`,
        [s.idHash, s.staffId, s.createdAt, s.expiresAt]);
      if (inserted.length === 0) throw new KitError('ERR_STORE', `No staff account ${s.staffId}`);
    },
    async getSession(idHash, now) {
      const [row] = await rows<SessionRow>('read a session',
        `SELECT * FROM ${t('admin_sessions')} WHERE id_hash = $1 AND expires_at > $2`, [idHash, now]);
      return row === undefined ? null : { idHash: row.id_hash, staffId: row.staff_id, createdAt: new Date(row.created_at), expiresAt: new Date(row.expires_at) };
    },
    async deleteSession(idHash) {
      await rows('delete a session', `DELETE FROM ${t('admin_sessions')} WHERE id_hash = $1`, [idHash]);
    },
    async deleteExpiredSessions(now) {
      const gone = await rows('delete expired sessions', `DELETE FROM ${t('admin_sessions')} WHERE expires_at <= $1 RETURNING 1`, [now]);
      return gone.length;
    },
  };
}
