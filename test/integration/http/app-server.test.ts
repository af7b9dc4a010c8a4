/**
 * createAppServer over real HTTP: requests reach the app as Express's own (req.ip, req.app,
 * res.locals, res.send, what the shop adds to app.request), Express's `setPrototypeOf` finds
 * them already on the app's prototypes (so it changes nothing), a sub-app still sees itself, and
 * in V8 consecutive responses share one hidden class — the reason the server exists.
 */
import { spawnSync } from 'node:child_process';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { appServerClasses, bornOn, createAppServer } from '../../../server/http/app-server.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => { resolve(); }); })));
});

async function listen(app: Express): Promise<{ server: Server; url: string }> {
  const server = createAppServer(app, { keepAliveTimeout: 5_000 });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}

describe('createAppServer', () => {
  it('hands the app requests already on its prototypes, with everything Express gives them', async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    (app.request as unknown as { shopFlag: string }).shopFlag = 'added before';
    const born = new WeakMap<IncomingMessage, object | null>();
    const { server, url } = await listen(app);
    (app.request as unknown as { lateFlag: string }).lateFlag = 'added after';
    server.prependListener('request', (req: IncomingMessage) => { born.set(req, Object.getPrototypeOf(req) as object | null); });
    app.post('/echo', express.urlencoded({ extended: false }), (req, res) => {
      res.locals.seen = true;
      const own = req as unknown as { shopFlag: string; lateFlag: string };
      res.status(201).json({
        samePrototype: born.get(req) === Object.getPrototypeOf(req) && Object.getPrototypeOf(req) === app.request,
        sameResponsePrototype: Object.getPrototypeOf(res) === app.response,
        app: req.app === app && res.app === app,
        ip: req.ip,
        body: req.body as unknown,
        locals: res.locals.seen === true,
        flags: [own.shopFlag, own.lateFlag],
      });
    });

    const answer = await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.7' }, body: 'a=1' });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({
      samePrototype: true, sameResponsePrototype: true, app: true, ip: '203.0.113.7', body: { a: '1' }, locals: true,
      flags: ['added before', 'added after'],
    });
    // Express's own 404 and error handling are untouched.
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
  });

  it('gives the same classes for the same app, and a sub-app still sees itself', async () => {
    const app = express();
    expect(appServerClasses(app)).toBe(appServerClasses(app));
    const shop = express();
    shop.get('/who', (req, res) => { res.send(req.app === shop ? 'shop' : 'other'); });
    app.use('/sub', shop);
    app.get('/who', (req, res) => { res.send(req.app === app ? 'app' : 'other'); });
    const { url } = await listen(app);
    expect(await (await fetch(`${url}/sub/who`)).text()).toBe('shop');
    expect(await (await fetch(`${url}/who`)).text()).toBe('app');
  });

  it('keeps app.request and app.response themselves, so mounting links them as it does without it', async () => {
    // Express's mount re-links a sub-app's request and response objects to the parent's: another
    // object put in front of them would leave a sub-app mounted earlier without what the parent
    // adds later, and a sub-app mounted later without what it had itself.
    const app = express();
    const before = app.request;
    const early = express();
    early.get('/', (req, res) => { res.json([(req as unknown as { late?: string }).late, typeof (res as unknown as { late?: unknown }).late]); });
    app.use('/early', early);
    const { url } = await listen(app);
    expect(app.request).toBe(before);
    (app.request as unknown as { late: string }).late = 'parent, added after';
    (app.response as unknown as { late: () => void }).late = () => undefined;
    const late = express();
    (late.request as unknown as { own: string }).own = 'its own';
    const standalone = await listen(late); // served on its own as well, then mounted
    late.get('/', (req, res) => {
      const { own, late: parent } = req as unknown as { own?: string; late?: string };
      res.json([own, parent, req.app === late, req.constructor === IncomingMessage, res.constructor === ServerResponse]);
    });
    app.use('/late', late);
    expect(await (await fetch(`${url}/early`)).json()).toEqual(['parent, added after', 'function']);
    expect(await (await fetch(`${url}/late`)).json()).toEqual(['its own', 'parent, added after', true, true, true]);
    expect(await (await fetch(standalone.url)).json()).toEqual(['its own', 'parent, added after', true, true, true]);
  });

  it('runs a class-based constructor too (should Node make them classes): born on the prototype, its fields set', () => {
    const proto = Object.create(IncomingMessage.prototype) as object;
    class AsClass { constructor(readonly socket: unknown) {} }
    function AsFunction(this: { socket: unknown }, socket: unknown): void { this.socket = socket; }
    for (const Base of [AsClass, AsFunction]) {
      const Born = bornOn(Base as unknown as typeof IncomingMessage, proto);
      const made = new Born('a socket' as never) as unknown as { socket: unknown };
      expect(Object.getPrototypeOf(made)).toBe(proto);
      expect(made.socket).toBe('a socket');
    }
  });

  it('in V8, consecutive responses share one hidden class (they do not with http.createServer)', () => {
    // %HaveSameMap needs V8's natives syntax: a child process of plain node runs the probe.
    const probe = fileURLToPath(new URL('./app-server-maps.probe.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', probe], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ appServer: { request: true, response: true }, plain: { request: false, response: false } });
  });
});
