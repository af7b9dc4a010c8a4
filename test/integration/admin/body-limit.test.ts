/**
 * An oversized admin form is refused with a readable 413 (not a reset connection) before the
 * body is read: the client finishes sending and gets the answer.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BodyTooLargeError, MAX_FORM_BYTES, readForm } from '../../../server/http/form-body.js';

let server: Server;
let url = '';
beforeAll(async () => {
  const app = express();
  app.post('/form', async (req, res) => {
    try {
      res.json(await readForm(req));
    } catch (err) {
      res.status(err instanceof BodyTooLargeError ? 413 : 400).set('Connection', 'close').send('too large');
    }
  });
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => {
      resolve(s);
    });
  });
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/form`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

it('answers 413 to a form over the limit, and still reads forms under it', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `a=${'x'.repeat(MAX_FORM_BYTES * 2)}` });
    expect(res.status).toBe(413);
  }
  const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&a=2' });
  expect(await ok.json()).toEqual({ a: ['1', '2'] });
});
