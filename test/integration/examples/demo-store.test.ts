/**
 * The demo store's own routes over real HTTP (the browser journeys cover paying): pages under
 * the kit's CSP, cross-site posts refused, a tampered cart cookie ignored, the checkout form's
 * validation, and the staff sign-in in front of the admin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoStore, type RunningDemoStore } from '../../../examples/demo-store/listen.js';
import { formWith, tempDir, Visitor } from './support.js';

describe('examples/demo-store', () => {
  let running: RunningDemoStore;
  const tmp = tempDir('demo-store-');

  beforeAll(async () => {
    running = await startDemoStore({ port: 0, sandboxPort: 0, dataDir: tmp.dir, sweeper: false, env: {}, admin: { password: 'correct horse' } });
  });

  afterAll(async () => {
    await running.close();
    tmp.remove();
  });

  it('serves every page under a strict CSP with a fresh nonce', async () => {
    const visitor = new Visitor();
    for (const path of ['/', '/products/MUG-STONE', '/cart', '/orders', '/admin/login', '/nope']) {
      const response = await fetch(`${running.url}${path}`);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(await response.text(), path).not.toMatch(/ style=| on[a-z]+=/);
    }
    expect((await visitor.get(`${running.url}/nope`)).status).toBe(404);
  });

  it('refuses a post from another site and changes nothing', async () => {
    const response = await fetch(`${running.url}/cart/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'sku=MUG-STONE&quantity=1',
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('keeps the cart in a signed cookie: prices come from the catalogue, a tampered cookie is an empty cart', async () => {
    const visitor = new Visitor();
    await visitor.post(`${running.url}/cart/add`, { sku: 'POT-IRON', quantity: '2' });
    const cart = await visitor.get(`${running.url}/cart`);
    expect(cart.text).toContain('€118.00');

    const cookie = /demo_cart=([^;]+)/.exec((await fetch(`${running.url}/cart/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: running.url },
      body: 'sku=POT-IRON&quantity=1',
      redirect: 'manual',
    })).headers.getSetCookie().join(';'))?.[1] ?? '';
    const [payload = '', mac = ''] = cookie.split('.');
    const forged = Buffer.from(JSON.stringify([['POT-IRON', 20]])).toString('base64url');
    const tampered = await fetch(`${running.url}/cart`, { headers: { cookie: `demo_cart=${forged}.${mac}` } });
    expect(await tampered.text()).toContain('Your cart is empty');
    const genuine = await fetch(`${running.url}/cart`, { headers: { cookie: `demo_cart=${payload}.${mac}` } });
    expect(await genuine.text()).toContain('Cast-iron teapot');
  });

  it('checks the checkout form on the server, names each field and creates no order', async () => {
    const visitor = new Visitor();
    await visitor.post(`${running.url}/cart/add`, { sku: 'MUG-STONE', quantity: '1' });
    const reply = await visitor.post(`${running.url}/cart/checkout`, {
      email: 'not-an-address', first_name: 'Ada', last_name: '', address: 'Keizersgracht 1', postal_code: '1015', city: 'Amsterdam',
      country: 'XX', method: 'card', ship_elsewhere: 'on',
    });
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('href="#email"');
    expect(reply.text).toContain('href="#last_name"');
    expect(reply.text).toContain('href="#country"');
    expect(reply.text).toContain('href="#delivery_address"');
    expect(reply.text).toContain('value="Keizersgracht 1"');
    expect(await running.store.kit.store.list({ limit: 5 })).toEqual([]);
  });

  it('creates the order from the cart and shows the pay page only in the browser that placed it', async () => {
    const visitor = new Visitor();
    await visitor.post(`${running.url}/cart/add`, { sku: 'TEA-SENCHA', quantity: '3' });
    const pay = await visitor.post(`${running.url}/cart/checkout`, {
      email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', address: 'Keizersgracht 1', postal_code: '1015 CJ',
      city: 'Amsterdam', country: 'NL', method: 'hosted',
    });
    expect(pay.status).toBe(200);
    expect(pay.url).toMatch(/\/orders\/[0-9a-f-]{36}\/pay$/);
    expect(pay.text).toContain('Continue to secure payment');
    expect(pay.text).toContain('4242 4242 4242 4242');
    const orderId = /\/orders\/([0-9a-f-]{36})\/pay$/.exec(pay.url)?.[1] ?? '';
    const order = await running.store.kit.store.get(orderId);
    expect(order).toMatchObject({ amount: 2670, currency: 'EUR', state: 'created' });
    expect(order?.data).toMatchObject({ methods: ['hosted', 'card', 'apm'], billing: { country: 'NL', city: 'Amsterdam' }, shopper: { email: 'ada@example.com' } });

    expect((await new Visitor().get(pay.url)).status).toBe(404);
    expect((await visitor.get(`${running.url}/cart`)).text).toContain('Your cart is empty');
  });

  it('signs staff in with the configured password only', async () => {
    const visitor = new Visitor();
    const refused = await visitor.request('GET', `${running.url}/admin/`, undefined, false);
    expect(refused.status).toBe(303);
    expect(refused.location).toBe('/admin/login');
    // The kit's sign-in form carries a CSRF token: sign in through the page, as a browser does.
    const form = formWith((await visitor.get(`${running.url}/admin/login`)).text, 'name="password"');
    const action = new URL(form.action, running.url).href;
    const wrong = await visitor.post(action, { ...form.fields, user: 'staff', password: 'demo' });
    expect(wrong.status).toBe(401);
    const right = await visitor.post(action, { ...form.fields, user: 'staff', password: 'correct horse' });
    expect(right.status).toBe(200);
    expect(right.url).toBe(`${running.url}/admin/`);
    expect(right.text).toContain('Orders');
  });
});
