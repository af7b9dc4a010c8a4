/**
 * The admin's built-in staff sign-in over real HTTP: scrypt-hashed accounts in the admin store,
 * server-side sessions ended by sign-out, password change and expiry, and failed sign-ins
 * throttled per account and per client address (429 with Retry-After, the right password
 * refused too until the window ends).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAdminRouter, createMemoryAdminStore, createSqliteAdminStore, hashStaffPassword,
  type AdminRouterOptions, type AdminStore, type SignInOptions, type StaffStore,
} from '../../../server/admin/index.js';
import { ConfigError } from '../../../server/errors.js';
import { csrfOf, StaffClient } from '../../helpers/staff-client.js';
import { CSRF_SECRET, startHarness, type AdminHarness } from './harness.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

let h: AdminHarness;
const servers: Server[] = [];
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  for (const s of servers) {
    await new Promise<void>((resolve) => {
      s.close(() => {
        resolve();
      });
      s.closeAllConnections();
    });
  }
  await h.close();
});

async function start(signIn: SignInOptions, adminStore: AdminStore & StaffStore = createMemoryAdminStore(), extra: Partial<AdminRouterOptions> = {}): Promise<{ url: string; store: AdminStore & StaffStore }> {
  const app = express();
  app.set('trust proxy', 'loopback');
  app.use('/admin', createAdminRouter({ kit: h.kit, signIn, csrfSecret: CSRF_SECRET, adminStore, resumeOnStart: false, ...extra }));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => {
      resolve(s);
    });
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, store: adminStore };
}

describe('admin sign-in: options', () => {
  it('refuses authorize together with signIn, an admin store without sessions, and bad limits, with coded errors', () => {
    const base = { kit: h.kit, csrfSecret: CSRF_SECRET, resumeOnStart: false };
    const staff = [{ id: 'kim', password: 'pw' }];
    const option = (fn: () => unknown): string => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect(err).toMatchObject({ code: 'ERR_CONFIG' });
        return (err as ConfigError).option;
      }
      throw new Error('no ConfigError');
    };
    expect(option(() => createAdminRouter({ ...base, authorize: () => null, signIn: { staff } }))).toBe('signIn');
    const noSessions = { ...createMemoryAdminStore(), getSession: undefined };
    expect(option(() => createAdminRouter({ ...base, signIn: { staff }, adminStore: noSessions }))).toBe('adminStore');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff: [] } }))).toBe('signIn.staff');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff: [{ id: 'kim', password: 'a' }, { id: 'KIM', password: 'b' }] } }))).toBe('signIn.staff');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff, rateLimit: { perAccount: 0 } } }))).toBe('signIn.rateLimit.perAccount');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff, rateLimit: { windowMs: 10 } } }))).toBe('signIn.rateLimit.windowMs');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff, rateLimit: { store: {} as never } } }))).toBe('signIn.rateLimit.store');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff, sessionTtlMs: 5 } }))).toBe('signIn.sessionTtlMs');
    expect(option(() => createAdminRouter({ ...base, signIn: { staff, remember: true } as never }))).toBe('signIn.remember');
  });
});

describe('admin sign-in over HTTP', () => {
  it('signs in with a session cookie that is random, HttpOnly, SameSite, path-scoped, Secure over https, and stored hashed', async () => {
    const { url, store } = await start({ staff: [{ id: 'kim', name: 'Kim', password: 'kim-password-1' }] });
    const kim = new StaffClient(url);
    const refused = await kim.get('/');
    expect(refused.status).toBe(303);
    expect(refused.location).toBe('/admin/login');

    const login = await kim.get('/login');
    expect(login.status).toBe(200);
    expect(login.headers.get('x-content-type-options')).toBe('nosniff');
    expect(login.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const signedIn = await kim.signIn('kim', 'kim-password-1');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/admin/');
    const set = signedIn.headers.getSetCookie().find((c) => c.startsWith('admin_session='));
    expect(set).toMatch(/; Path=\/admin/);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Lax/);
    expect(set).not.toMatch(/; Secure/);
    const id = kim.cookies.get('admin_session') ?? '';
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const home = await kim.get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Kim');
    expect(home.text).toContain('action="/admin/logout"');

    // Only the id's SHA-256 is stored.
    expect(await store.getSession(sha256(id), new Date())).toMatchObject({ staffId: 'kim' });
    expect(await store.getSession(id, new Date())).toBeNull();
    const account = await store.getStaff('kim');
    expect(account?.passwordHash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(account?.passwordHash).not.toContain('kim-password-1');

    // Behind a TLS-terminating proxy (trust proxy: loopback), the cookie is Secure.
    const proxied = new StaffClient(url, '/admin', { 'x-forwarded-proto': 'https' });
    const viaHttps = await proxied.signIn('kim', 'kim-password-1', { origin: `https://${new URL(url).host}` });
    expect(viaHttps.status).toBe(303);
    expect(viaHttps.headers.getSetCookie().find((c) => c.startsWith('admin_session='))).toMatch(/; Secure/);
  });

  it('answers an unknown user and a wrong password alike, and refuses a sign-in without its form token', async () => {
    const { url } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }] });
    const wrong = await new StaffClient(url).signIn('kim', 'nope');
    const unknown = await new StaffClient(url).signIn('nobody', 'nope');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (t: string): string | undefined => /role="alert">([^<]*)</.exec(t)?.[1];
    expect(message(wrong.text)).toBe('That user name and password do not match.');
    expect(message(unknown.text)).toBe(message(wrong.text));
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('admin_session='))).toBe(false);

    const noToken = await new StaffClient(url).request('POST', '/admin/login', { user: 'kim', password: 'kim-password-1' });
    expect(noToken.status).toBe(403);
    const crossSite = await new StaffClient(url).signIn('kim', 'kim-password-1', { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const tooLong = await new StaffClient(url).signIn('kim', 'x'.repeat(201));
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('field password');
  });

  it('locks an account after N wrong passwords (429, Retry-After, right password refused) and lets it in after the window', async () => {
    const { url } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }], rateLimit: { perAccount: 3, perAddress: 100, windowMs: 6000 } });
    const statuses: number[] = [];
    // Each attempt from its own address: the account's count alone trips.
    for (let i = 0; i < 3; i++) statuses.push((await new StaffClient(url, '/admin', { 'x-forwarded-for': `198.51.100.${String(i + 1)}` }).signIn('kim', `wrong-${String(i)}`)).status);
    expect(statuses).toEqual([401, 401, 401]);
    const locked = await new StaffClient(url, '/admin', { 'x-forwarded-for': '198.51.100.9' }).signIn('KIM ', 'kim-password-1');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(6);
    expect(locked.text).toContain('Too many sign-in attempts');
    expect(locked.headers.getSetCookie().some((c) => c.startsWith('admin_session='))).toBe(false);
    expect(locked.headers.get('x-content-type-options')).toBe('nosniff');

    // The window is fixed from the first failure: Retry-After says when it ends.
    await sleep(Number(locked.headers.get('retry-after')) * 1000 + 250);
    const after = new StaffClient(url, '/admin', { 'x-forwarded-for': '198.51.100.9' });
    expect((await after.signIn('kim', 'kim-password-1')).status).toBe(303);
    expect((await after.get('/')).status).toBe(200);
  });

  it('limits failed sign-ins per client address across account names; another address is not affected', async () => {
    const { url } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }], rateLimit: { perAccount: 100, perAddress: 4, windowMs: 60_000 } });
    const attacker = (user: string): Promise<number> => new StaffClient(url, '/admin', { 'x-forwarded-for': '203.0.113.50' }).signIn(user, 'guess').then((r) => r.status);
    const statuses = [await attacker('a'), await attacker('b'), await attacker('c'), await attacker('d'), await attacker('e')];
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const same = await new StaffClient(url, '/admin', { 'x-forwarded-for': '203.0.113.50' }).signIn('kim', 'kim-password-1');
    expect(same.status).toBe(429);
    const other = await new StaffClient(url, '/admin', { 'x-forwarded-for': '203.0.113.51' }).signIn('kim', 'kim-password-1');
    expect(other.status).toBe(303);
  });

  it('a successful sign-in does not count towards the limit', async () => {
    const { url } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }], rateLimit: { perAccount: 2, perAddress: 2, windowMs: 60_000 } });
    for (let i = 0; i < 4; i++) expect((await new StaffClient(url).signIn('kim', 'kim-password-1')).status).toBe(303);
  });

  it('ends the session at sign-out: a cookie saved before is refused afterwards', async () => {
    const { url, store } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }] });
    const kim = new StaffClient(url);
    const token = csrfOf((await kim.get('/login')).text, '/admin/login');
    await kim.request('POST', '/admin/login', { _csrf: token, user: 'kim', password: 'kim-password-1' });
    // Signing in again (a second tab's form) replaces the session: the first cookie opens nothing more.
    const first = kim.saved();
    const again = await kim.request('POST', '/admin/login', { _csrf: token, user: 'kim', password: 'kim-password-1' });
    expect(again.status).toBe(303);
    expect(again.headers.getSetCookie().filter((c) => c.startsWith('admin_session='))).toHaveLength(1);
    expect((await StaffClient.withCookies(url, first).get('/')).status).toBe(303);
    const saved = kim.saved();
    const id = saved.get('admin_session') ?? '';
    expect((await kim.signOut()).location).toBe('/admin/login');
    expect(kim.cookies.has('admin_session')).toBe(false);
    expect(await store.getSession(sha256(id), new Date())).toBeNull();
    const replay = StaffClient.withCookies(url, saved);
    const res = await replay.get('/');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/admin/login');
  });

  it('a password change ends every other session, keeps this browser signed in, and the old password stops working', async () => {
    const { url } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }] });
    const laptop = new StaffClient(url);
    const phone = new StaffClient(url);
    await laptop.signIn('kim', 'kim-password-1');
    await phone.signIn('kim', 'kim-password-1');
    const before = laptop.saved();

    expect((await laptop.changePassword('not-it', 'kim-password-2')).status).toBe(401);
    const short = await laptop.changePassword('kim-password-1', 'short');
    expect(short.status).toBe(400);
    expect(short.text).toContain('new_password');
    expect((await laptop.changePassword('kim-password-1', 'kim-password-2', 'kim-password-3')).status).toBe(400);
    expect((await phone.get('/')).status).toBe(200);

    const changed = await laptop.changePassword('kim-password-1', 'kim-password-2');
    expect(changed.status).toBe(303);
    expect((await laptop.get('/')).status).toBe(200);
    expect((await phone.get('/')).status).toBe(303);
    expect((await StaffClient.withCookies(url, before).get('/')).status).toBe(303);
    expect((await new StaffClient(url).signIn('kim', 'kim-password-1')).status).toBe(401);
    expect((await new StaffClient(url).signIn('kim', 'kim-password-2')).status).toBe(303);
  });

  it('ends the session at expiry', async () => {
    const { url, store } = await start({ staff: [{ id: 'kim', password: 'kim-password-1' }], sessionTtlMs: 2000 });
    const kim = new StaffClient(url);
    await kim.signIn('kim', 'kim-password-1');
    expect((await kim.get('/')).status).toBe(200);
    await sleep(2100);
    expect((await kim.get('/')).status).toBe(303);
    expect(await store.deleteExpiredSessions(new Date())).toBe(1);
  });

  it('keeps a changed password over a restart with the same options; new configured passwords replace it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-sign-in-'));
    try {
      const path = join(dir, 'admin.sqlite');
      const hashed = await hashStaffPassword('gina-password-1');
      const staff = [{ id: 'kim', password: 'kim-password-1' }, { id: 'gina', password: hashed }];
      const first = await start({ staff }, createSqliteAdminStore({ path }));
      const kim = new StaffClient(first.url);
      expect((await kim.signIn('kim', 'kim-password-1')).status).toBe(303);
      expect((await kim.changePassword('kim-password-1', 'kim-password-2')).status).toBe(303);
      expect((await new StaffClient(first.url).signIn('gina', 'gina-password-1')).status).toBe(303);

      // No plain-text password anywhere in the file.
      const db = new Database(path, { readonly: true });
      const rows = db.prepare('SELECT * FROM admin_staff').all();
      db.close();
      expect(JSON.stringify(rows)).not.toMatch(/kim-password|gina-password/);

      const again = await start({ staff }, createSqliteAdminStore({ path }));
      expect((await new StaffClient(again.url).signIn('kim', 'kim-password-2')).status).toBe(303);
      // The session survives the restart too (it lives in the store).
      expect((await StaffClient.withCookies(again.url, kim.saved()).get('/')).status).toBe(200);

      const reset = await start({ staff: [{ id: 'kim', password: 'kim-password-new' }] }, createSqliteAdminStore({ path }));
      expect((await new StaffClient(reset.url).signIn('kim', 'kim-password-2')).status).toBe(401);
      expect((await new StaffClient(reset.url).signIn('kim', 'kim-password-new')).status).toBe(303);
      // The reset ended kim's sessions; gina, no longer configured, signs in no more.
      expect((await StaffClient.withCookies(reset.url, kim.saved()).get('/')).status).toBe(303);
      expect((await new StaffClient(reset.url).signIn('gina', 'gina-password-1')).status).toBe(401);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
