import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../server/admin/index.js';
import { ConfigError } from '../../../server/errors.js';
import { CSRF_SECRET, StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('admin security', () => {
  it('refuses to mount without an authorize function, naming the option and the fix', () => {
    const attempt = (): unknown => createAdminRouter({ kit: h.kit, csrfSecret: CSRF_SECRET });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      expect(err).toMatchObject({ code: 'ERR_CONFIG', option: 'authorize' });
      expect((err as ConfigError).fix).toMatch(/authorize: \(req\) =>/);
    }
    expect(() => createAdminRouter({ kit: h.kit, csrfSecret: CSRF_SECRET, authorize: 'yes' } as never)).toThrow(/authorize/);
  });

  it('rejects unknown options and a short csrfSecret with coded errors', () => {
    const base = { kit: h.kit, authorize: () => null, csrfSecret: CSRF_SECRET };
    expect(() => createAdminRouter({ ...base, csrfSecrett: 'x' } as never)).toThrow(/csrfSecrett/);
    expect(() => createAdminRouter({ ...base, csrfSecret: 'short' })).toThrow(expect.objectContaining({ option: 'csrfSecret' }) as Error);
  });

  it('answers 401 without staff, and calls onUnauthenticated when given', async () => {
    const res = await request(h.admin.baseUrl).get('/admin/');
    expect(res.status).toBe(401);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('Sign in required');

    const app = express();
    app.use('/staff', createAdminRouter({
      kit: h.kit, csrfSecret: CSRF_SECRET, authorize: () => null, resumeOnStart: false,
      onUnauthenticated: (_req, res) => {
        res.redirect(303, '/login?next=/staff');
      },
    }));
    const redirected = await request(app).get('/staff/orders/x');
    expect(redirected.status).toBe(303);
    expect(redirected.headers.location).toBe('/login?next=/staff');
  });

  it('serves pages no-store under a strict CSP with a nonce and no inline script, style or handler', async () => {
    await h.createAuthorised();
    const staff = new StaffSession(h.admin);
    const res = await staff.get('/');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toMatch(/style-src 'self'/);
    expect(csp).toMatch(/form-action 'self'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).not.toMatch(/\sstyle=/i);
    expect(res.text).not.toMatch(/\son[a-z]+=/i);
    expect(res.text).toContain('<svg');
    const css = await request(h.admin.baseUrl).get('/admin/assets/admin.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
  });

  it('refuses a POST without a CSRF token (403) and changes nothing', async () => {
    const order = await h.createAuthorised();
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const captures = h.count('/v1/capture');
    const res = await staff.post(`/orders/${order.id}/capture`, { _csrf: '' });
    expect(res.status).toBe(403);
    const forged = await staff.post(`/orders/${order.id}/capture`, { _csrf: 'A'.repeat(22) + '.' + 'B'.repeat(43) });
    expect(forged.status).toBe(403);
    expect(h.count('/v1/capture')).toBe(captures);
    expect((await h.kit.store.get(order.id))?.state).toBe('authorized');
    expect((await h.kit.store.listEvents(order.id)).some((e) => e.type === 'admin_action')).toBe(false);
    expect(h.sandbox.ledger.transaction(order.orderNo)?.capturedAmount).toBe(0);
  });

  it('a token issued to one staff member does not work for another', async () => {
    const order = await h.createAuthorised();
    const alice = new StaffSession(h.admin, 'alice');
    await alice.get(`/orders/${order.id}`);
    const res = await alice.post(`/orders/${order.id}/capture`, {}, { 'x-staff': 'mallory' });
    expect(res.status).toBe(403);
    expect((await h.kit.store.get(order.id))?.state).toBe('authorized');
  });

  it('refuses a cross-origin POST even with a valid token, and one with no Origin or Referer', async () => {
    const order = await h.createAuthorised();
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const captures = h.count('/v1/capture');
    const cross = await staff.post(`/orders/${order.id}/capture`, {}, { Origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.text).toContain('did not come from an admin page');
    const nullOrigin = await staff.post(`/orders/${order.id}/capture`, {}, { Origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    const viaReferer = await request(h.admin.baseUrl)
      .post(`/admin/orders/${order.id}/sync`)
      .set('x-staff', 'alice')
      .set('Referer', 'https://evil.example/page')
      .type('form')
      .send('_csrf=x');
    expect(viaReferer.status).toBe(403);
    expect(h.count('/v1/capture')).toBe(captures);
    expect((await h.kit.store.get(order.id))?.state).toBe('authorized');
  });

  it('accepts a same-origin Referer when the browser sends no Origin', async () => {
    const order = await h.createAuthorised();
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/sync`, {}, { Origin: '', Referer: `${staff.origin}/admin/orders/${order.id}` });
    expect(res.status).toBe(303);
    const none = await staff.post(`/orders/${order.id}/sync`, {}, { Origin: '' });
    expect(none.status).toBe(403);
  });

  it('works when the shop already parsed form bodies, and still checks the token', async () => {
    const shop = await h.startAdmin({ resumeOnStart: false }, true);
    const order = await h.createAuthorised();
    const staff = new StaffSession(shop);
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/capture`, { _csrf: 'nope' })).status).toBe(403);
    expect((await h.kit.store.get(order.id))?.state).toBe('authorized');
    expect((await staff.post(`/orders/${order.id}/capture`)).status).toBe(303);
    expect((await h.kit.store.get(order.id))?.state).toBe('paid');
  });
});
