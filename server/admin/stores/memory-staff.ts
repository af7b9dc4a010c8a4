/** The StaffStore half of the memory AdminStore: accounts and sessions in two maps. */
import { KitError } from '../../errors.js';
import type { StaffAccount, StaffSessionRecord, StaffStore } from '../staff-store.js';

export function createMemoryStaffStore(): StaffStore {
  const staff = new Map<string, StaffAccount>();
  const sessions = new Map<string, StaffSessionRecord>();
  const copyAccount = (a: StaffAccount): StaffAccount => ({ ...a, passwordChangedAt: new Date(a.passwordChangedAt) });
  const copySession = (s: StaffSessionRecord): StaffSessionRecord => ({ ...s, createdAt: new Date(s.createdAt), expiresAt: new Date(s.expiresAt) });

  return {
    getStaff(id) {
      const a = staff.get(id);
      return Promise.resolve(a ? copyAccount(a) : null);
    },
    saveStaff(account) {
      const before = staff.get(account.id);
      if (before !== undefined && before.passwordHash !== account.passwordHash) {
        for (const [key, s] of sessions) if (s.staffId === account.id) sessions.delete(key);
      }
      staff.set(account.id, copyAccount(account));
      return Promise.resolve();
    },
    createSession(session) {
      if (!staff.has(session.staffId)) return Promise.reject(new KitError('ERR_STORE', `No staff account ${session.staffId}`));
      sessions.set(session.idHash, copySession(session));
      return Promise.resolve();
    },
    getSession(idHash, now) {
      const s = sessions.get(idHash);
      return Promise.resolve(s !== undefined && s.expiresAt.getTime() > now.getTime() ? copySession(s) : null);
    },
    deleteSession(idHash) {
      sessions.delete(idHash);
      return Promise.resolve();
    },
    deleteExpiredSessions(now) {
      let n = 0;
      for (const [key, s] of sessions) {
        if (s.expiresAt.getTime() <= now.getTime()) {
          sessions.delete(key);
          n++;
        }
      }
      return Promise.resolve(n);
    },
  };
}
