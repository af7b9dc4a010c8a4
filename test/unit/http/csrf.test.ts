import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { CSRF_COOKIE, createCsrf } from '../../../server/http/csrf.js';

const csrf = createCsrf({ secrets: ['test-secret-0123456789abcdef'] });

/** GET /form/:id issues a field bound to :id; POST /form/:id counts the actions that passed. */
function app() {
  const actions: string[] = [];
  const server = express();
  const router = express.Router();
  router.use(express.urlencoded({ extended: false }));
  router.get('/form/:id', (req, res) => {
    res.json({ field: csrf.issue(req, res, req.params.id) });
  });
  router.post(
    '/form/:id',
    csrf.protect((req) => String(req.params.id)),
    (req, res) => {
      actions.push(String(req.params.id));
      res.send('done');
    },
  );
  server.use('/shop/checkout', router);
  return { server, actions };
}

function cookieOf(res: request.Response): string {
  const raw = res.headers['set-cookie'] as unknown as string[];
  const cookie = raw.find((c) => c.startsWith(`${CSRF_COOKIE}=`));
  if (!cookie) throw new Error('no csrf cookie');
  return cookie;
}

describe('CSRF (signed double submit bound to the order)', () => {
  it('sets a strict, HttpOnly cookie scoped to the mount path, Secure only over https', async () => {
    const { server } = app();
    const plain = cookieOf(await request(server).get('/shop/checkout/form/A'));
    expect(plain).toMatch(/HttpOnly/);
    expect(plain).toMatch(/SameSite=Strict/);
    expect(plain).toMatch(/Path=\/shop\/checkout(;|$)/);
    expect(plain).not.toMatch(/Secure/);
    server.set('trust proxy', true);
    const secure = cookieOf(await request(server).get('/shop/checkout/form/A').set('X-Forwarded-Proto', 'https'));
    expect(secure).toMatch(/Secure/);
  });

  it('accepts the matching cookie and field', async () => {
    const { server, actions } = app();
    const agent = request.agent(server);
    const { body } = await agent.get('/shop/checkout/form/A');
    const res = await agent.post('/shop/checkout/form/A').type('form').send({ _csrf: body.field });
    expect(res.status).toBe(200);
    expect(actions).toEqual(['A']);
  });

  it('reuses the cookie so two open pages both work', async () => {
    const { server, actions } = app();
    const agent = request.agent(server);
    const a = (await agent.get('/shop/checkout/form/A')).body.field;
    const b = (await agent.get('/shop/checkout/form/B')).body.field;
    expect((await agent.post('/shop/checkout/form/A').type('form').send({ _csrf: a })).status).toBe(200);
    expect((await agent.post('/shop/checkout/form/B').type('form').send({ _csrf: b })).status).toBe(200);
    expect(actions).toEqual(['A', 'B']);
  });

  it('refuses a missing field, a missing cookie, a mismatched cookie and another order\'s field', async () => {
    const { server, actions } = app();
    const agent = request.agent(server);
    const field = (await agent.get('/shop/checkout/form/A')).body.field as string;
    const otherOrder = (await agent.get('/shop/checkout/form/B')).body.field as string;

    const noField = await agent.post('/shop/checkout/form/A').type('form').send({});
    const noCookie = await request(server).post('/shop/checkout/form/A').type('form').send({ _csrf: field });
    const otherCookie = await request(server)
      .post('/shop/checkout/form/A')
      .set('Cookie', `${CSRF_COOKIE}=${'x'.repeat(22)}`)
      .type('form')
      .send({ _csrf: field });
    const wrongOrder = await agent.post('/shop/checkout/form/A').type('form').send({ _csrf: otherOrder });
    const forged = await agent.post('/shop/checkout/form/A').type('form').send({ _csrf: `${field.split('.')[0]}.${'A'.repeat(43)}` });

    for (const res of [noField, noCookie, otherCookie, wrongOrder, forged]) {
      expect(res.status).toBe(403);
      expect(res.text).toMatch(/expired or was not sent from this site/);
    }
    expect(actions).toEqual([]);
  });

  it('accepts a field signed with an older secret after rotation', async () => {
    const old = createCsrf({ secrets: ['old-secret-0123456789'] });
    const rotated = createCsrf({ secrets: ['new-secret-0123456789', 'old-secret-0123456789'] });
    const server = express();
    server.use(express.urlencoded({ extended: false }));
    server.get('/f', (req, res) => res.json({ field: old.issue(req, res, 'A') }));
    server.post('/f', (req, res) => res.json({ reason: rotated.check(req, 'A') }));
    const agent = request.agent(server);
    const { body } = await agent.get('/f');
    expect((await agent.post('/f').type('form').send({ _csrf: body.field })).body.reason).toBeNull();
  });
});
