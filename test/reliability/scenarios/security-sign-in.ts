/**
 * The security scenario's staff sign-in part, against a shop whose admin uses the kit's own
 * sign-in: sessions ended by sign-out, by a password change and by expiry refuse a cookie saved
 * before; a brute force on one account locks it (429 with Retry-After, the right password
 * refused too) until the window ends, from any address; one address trying many accounts is
 * locked out the same way, other addresses are not.
 */
import { StaffClient, type StaffReply } from '../../helpers/staff-client.js';
import type { Report } from '../support/result.js';
import type { Shop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';

export const SIGN_IN_STAFF = [
  { id: 'kim', password: 'kim-password-one' },
  { id: 'gina', password: 'gina-password-one' },
];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The sign-in options of the shop the checks run against. */
export function signInOptions(size: Size): { staff: typeof SIGN_IN_STAFF; sessionTtlMs: number; rateLimit: { perAccount: number; perAddress: number; windowMs: number } } {
  const s = size.security.signIn;
  return { staff: SIGN_IN_STAFF, sessionTtlMs: s.sessionTtlMs, rateLimit: { perAccount: s.perAccount, perAddress: s.perAccount * 2, windowMs: s.windowMs } };
}

/** Runs every check; `seen` gets every reply (for the nosniff check). Returns the requests made. */
export async function signInChecks(report: Report, size: Size, shop: Shop, seen: (where: string, reply: StaffReply) => void): Promise<number> {
  const { perAccount, whileLocked, windowMs, sessionTtlMs } = size.security.signIn;
  const perAddress = perAccount * 2;
  let runs = 0;
  const client = (address: string): StaffClient => {
    const c = new StaffClient(shop.url, '/admin', { 'x-forwarded-for': address });
    const request = c.request.bind(c);
    c.request = async (...args) => {
      const reply = await request(...args);
      runs++;
      seen(`${args[0]} ${args[1]}`, reply);
      return reply;
    };
    return c;
  };
  const opens = async (c: StaffClient): Promise<boolean> => (await c.get('/')).status === 200;
  const replay = (saved: Map<string, string>): StaffClient => {
    const c = client('192.0.2.200');
    c.cookies = new Map(saved);
    return c;
  };
  const [kim, gina] = SIGN_IN_STAFF as [(typeof SIGN_IN_STAFF)[0], (typeof SIGN_IN_STAFF)[0]];

  // Revocation: sign-out, password change, expiry. Each saved cookie worked before it was revoked.
  const revoked: string[] = [];
  const expiring = client('192.0.2.1');
  await expiring.signIn(kim.id, kim.password);
  const expiringAt = Date.now();
  const expiringCookie = expiring.saved();
  if (!(await opens(expiring))) revoked.push('a fresh session did not open the admin');

  const leaving = client('192.0.2.2');
  await leaving.signIn(kim.id, kim.password);
  const beforeSignOut = leaving.saved();
  if (!(await opens(replay(beforeSignOut)))) revoked.push('the saved cookie did not work before sign-out');
  await leaving.signOut();
  if (await opens(replay(beforeSignOut))) revoked.push('a cookie saved before sign-out still opens the admin');

  const laptop = client('192.0.2.3');
  const phone = client('192.0.2.4');
  await laptop.signIn(gina.id, gina.password);
  await phone.signIn(gina.id, gina.password);
  const beforeChange = laptop.saved();
  const changed = await laptop.changePassword(gina.password, 'gina-password-two');
  if (changed.status !== 303) revoked.push(`the password change answered ${String(changed.status)}`);
  if (await opens(replay(beforeChange))) revoked.push('a cookie saved before the password change still opens the admin');
  if (await opens(phone)) revoked.push('another session survived the password change');
  if (!(await opens(laptop))) revoked.push('the browser that changed the password was signed out');
  if ((await client('192.0.2.5').signIn(gina.id, gina.password)).status !== 401) revoked.push('the old password still signs in');

  // Brute force on one account, each attempt from its own address: the account's count trips.
  const brute: string[] = [];
  const statuses: number[] = [];
  // The window is fixed from the first failure: it is sized (sizes.ts) well beyond the attempts.
  const bruteStart = Date.now();
  for (let i = 0; i < perAccount; i++) statuses.push((await client(`198.51.100.${String(i % 250)}`).signIn(kim.id, `wrong-${String(i)}`)).status);
  if (statuses.some((s) => s !== 401)) brute.push(`wrong passwords answered ${[...new Set(statuses)].join(',')}, not 401`);
  const locked = await client('203.0.113.77').signIn(kim.id, kim.password);
  const retryAfter = Number(locked.headers.get('retry-after'));
  const lockedAt = Date.now();
  if (locked.status !== 429) brute.push(`the right password while locked answered ${String(locked.status)}, not 429 (${String(perAccount)} failures took ${String(lockedAt - bruteStart)} ms)`);
  if (!(retryAfter >= 1 && retryAfter <= Math.ceil(windowMs / 1000))) brute.push(`Retry-After was "${locked.headers.get('retry-after') ?? ''}"`);
  if (locked.headers.getSetCookie().some((c) => c.startsWith('admin_session='))) brute.push('a locked sign-in set a session cookie');
  for (let i = 0; i < whileLocked; i++) {
    const again = await client(`203.0.113.${String(100 + (i % 100))}`).signIn(i % 2 === 0 ? kim.id : kim.id.toUpperCase(), i % 3 === 0 ? kim.password : 'guess');
    if (again.status !== 429) brute.push(`attempt ${String(i + 1)} while locked answered ${String(again.status)}`);
  }

  // One address, many accounts: locked by address; the same account from elsewhere is not.
  const sprayed: number[] = [];
  // One of the names is a test card number typed in the wrong field: never logged, stored or shown again (the card scan).
  for (let i = 0; i < perAddress; i++) sprayed.push((await client('203.0.113.5').signIn(i === 1 ? '4242 4242 4242 4242' : `nobody-${String(i)}`, 'guess')).status);
  if (sprayed.some((s) => s !== 401)) brute.push('an unknown account did not answer 401');
  const sprayedLocked = await client('203.0.113.5').signIn(gina.id, 'gina-password-two');
  if (sprayedLocked.status !== 429) brute.push(`the sprayed address was not locked: ${String(sprayedLocked.status)} ${sprayed.join(',')}`);
  if ((await client('203.0.113.6').signIn(gina.id, 'gina-password-two')).status !== 303) brute.push('another address was locked with the sprayed one');

  // The window ends: the right password signs in again.
  await sleep(Math.max(retryAfter * 1000, windowMs) - (Date.now() - lockedAt) + 250);
  const after = client('203.0.113.78');
  const released = await after.signIn(kim.id, kim.password);
  if (released.status !== 303 || !(await opens(after))) brute.push(`after the window the right password answered ${String(released.status)}`);
  report.check(`admin brute force: ${String(perAccount)} wrong passwords lock the account (429 with Retry-After, the right password refused ${String(whileLocked + 1)} times) until the window ends; ${String(perAddress)} failures lock one address only`,
    perAccount + whileLocked + perAddress + 4, brute);

  await sleep(Math.max(0, expiringAt + sessionTtlMs + 250 - Date.now()));
  if (await opens(replay(expiringCookie))) revoked.push('an expired session still opens the admin');
  report.check('admin sessions: a cookie saved before sign-out, before a password change (and every other session) or before expiry is refused afterwards',
    9, revoked);
  return runs;
}
