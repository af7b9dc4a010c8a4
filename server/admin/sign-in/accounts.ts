/**
 * The staff accounts of `signIn.staff`, written to the admin store at start-up. Plain-text
 * passwords are hashed here and never kept. An account whose configured password is unchanged
 * since the last start keeps the password staff may have changed in the admin; a new configured
 * password replaces it (and, being a new hash, ends the account's sessions).
 */
import type { StaffStore } from '../staff-store.js';
import type { ResolvedSignIn } from './options.js';
import { hashPassword, isPasswordHash, verifyPassword } from './passwords.js';

export interface StaffDirectory {
  /** The configured id for what was typed at sign-in (ids match without regard to case). */
  lookup(typed: string): string | null;
  /** Whether the account is still configured (one removed from the options signs in no more). */
  has(id: string): boolean;
}

export function staffDirectory(staff: ResolvedSignIn['staff']): StaffDirectory {
  const byLower = new Map(staff.map((s) => [s.id.toLowerCase(), s.id]));
  const ids = new Set(staff.map((s) => s.id));
  return {
    lookup: (typed) => byLower.get(typed.trim().toLowerCase()) ?? null,
    has: (id) => ids.has(id),
  };
}

async function sameAsConfigured(password: string, configHash: string): Promise<boolean> {
  return isPasswordHash(password) ? password === configHash : verifyPassword(password, configHash);
}

export async function seedStaff(store: StaffStore, staff: ResolvedSignIn['staff'], now: () => Date = () => new Date()): Promise<void> {
  for (const s of staff) {
    const existing = await store.getStaff(s.id);
    if (existing !== null && (await sameAsConfigured(s.password, existing.configHash))) {
      if (existing.name !== s.name) await store.saveStaff({ ...existing, name: s.name });
      continue;
    }
    const hash = isPasswordHash(s.password) ? s.password : await hashPassword(s.password);
    await store.saveStaff({ id: s.id, name: s.name, passwordHash: hash, configHash: hash, passwordChangedAt: now() });
  }
}
