/**
 * Staff passwords are kept only as scrypt hashes: `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (salt
 * and key base64url). The cost parameters travel with each hash, so raising them later leaves
 * old hashes verifiable. Verification compares in constant time and always runs one scrypt, also
 * for an unknown account (against a dummy hash), so neither the answer nor its timing tells an
 * unknown user name from a wrong password.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PREFIX = 'scrypt';
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per attempt on a server core. */
export const DEFAULT_COST = { log2N: 15, r: 8, p: 1 } as const;

interface Parsed {
  log2N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

const HASH_RE = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{32,128})$/;

function parse(hash: string): Parsed | null {
  const m = HASH_RE.exec(hash);
  if (m === null) return null;
  const [log2N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounds keep a hash from the configuration from asking for gigabytes or minutes.
  if (log2N < 14 || log2N > 20 || r < 1 || r > 32 || p < 1 || p > 4) return null;
  return { log2N, r, p, salt: Buffer.from(m[4] ?? '', 'base64url'), key: Buffer.from(m[5] ?? '', 'base64url') };
}

function derive(password: string, salt: Buffer, cost: { log2N: number; r: number; p: number }, length: number): Promise<Buffer> {
  const N = 2 ** cost.log2N;
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

/** True when `value` is a hash this module made (and can verify). */
export function isPasswordHash(value: string): boolean {
  return parse(value) !== null;
}

/** Hashes a password with a fresh salt. */
export async function hashPassword(password: string, cost: { log2N: number; r: number; p: number } = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, KEY_BYTES);
  return [PREFIX, cost.log2N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

let dummy: Promise<string> | null = null;
/**
 * A hash nobody knows the password of, made once: what an unknown account is checked against.
 * The sign-in makes it at start-up, so the first unknown name does not take two scrypt runs.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummy;
}

/**
 * Whether `password` matches `hash`. A null or unreadable hash (unknown account) is checked
 * against the dummy hash and answers false, taking the same time as a wrong password.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const parsed = parse(hash ?? '');
  const target = parsed ?? parse(await dummyHash());
  if (target === null) throw new Error('the dummy password hash is unreadable');
  const key = await derive(password, target.salt, target, target.key.length);
  const same = key.length === target.key.length && timingSafeEqual(key, target.key);
  return parsed !== null && same;
}
