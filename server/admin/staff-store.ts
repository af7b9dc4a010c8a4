/**
 * What the admin's built-in staff sign-in keeps: staff accounts (a password hash, never the
 * password) and server-side sessions. The kit's three AdminStore adapters implement it; a shop's
 * own AdminStore needs it only when it uses `signIn`.
 *
 * Rules every adapter keeps:
 * - A session is stored under the SHA-256 of its id, never the id itself, so reading the table
 *   gives nobody a usable cookie.
 * - `saveStaff` that changes an account's password hash deletes the account's sessions in the
 *   same transaction: a password change signs every browser out.
 * - `getSession` never returns a session whose `expiresAt` is not after `now`.
 */

export interface StaffAccount {
  id: string;
  name: string | null;
  /** A `scrypt$…` hash (see sign-in/passwords.ts). */
  passwordHash: string;
  /**
   * Hash of the password the router's options gave when it was last applied: a restart with the
   * same options keeps a password staff changed since; new options replace it.
   */
  configHash: string;
  passwordChangedAt: Date;
}

export interface StaffSessionRecord {
  /** SHA-256 (hex) of the session id held in the browser's cookie. */
  idHash: string;
  staffId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface StaffStore {
  getStaff(id: string): Promise<StaffAccount | null>;
  /** Inserts or replaces the account; a different password hash deletes its sessions (atomically). */
  saveStaff(account: StaffAccount): Promise<void>;
  /** Rejects when the account does not exist. */
  createSession(session: StaffSessionRecord): Promise<void>;
  /** The session when it exists and `expiresAt > now`; null otherwise. */
  getSession(idHash: string, now: Date): Promise<StaffSessionRecord | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Deletes every session that expired at or before `now`; returns how many. */
  deleteExpiredSessions(now: Date): Promise<number>;
}

export const STAFF_STORE_METHODS = ['getStaff', 'saveStaff', 'createSession', 'getSession', 'deleteSession', 'deleteExpiredSessions'] as const;
