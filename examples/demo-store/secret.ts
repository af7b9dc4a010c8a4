/**
 * The demo store's one secret (URL tokens, cookies, admin CSRF), made on first start and kept
 * in `data/`, so links and cookies survive a restart. Each use derives its own key from it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_FILE = 'demo-secret.txt';

export function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, SECRET_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // First start: no secret yet.
  }
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** A separate key per purpose, so no two parts ever share a secret. */
export function deriveSecret(secret: string, purpose: string): string {
  return createHmac('sha256', secret).update(`demo-store/${purpose}`).digest('base64url');
}
