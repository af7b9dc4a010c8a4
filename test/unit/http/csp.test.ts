import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { allowFormAction, cspMiddleware, originOf } from '../../../server/http/csp.js';

function directives(header: string): Map<string, string> {
  return new Map(
    header.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values.join(' ')] as const;
    }),
  );
}

function app() {
  const server = express();
  server.get('/page', cspMiddleware(() => ['https://gateway.example/v1/checkout?x=1', 'javascript:alert(1)', 'not a url']), (_req, res) => {
    res.json({ nonce: res.locals.cspNonce });
  });
  server.get('/issuer', cspMiddleware(), (req, res) => {
    const ok = allowFormAction(req, res, 'https://issuer.example:8443/3ds/abc?y=2');
    const sanitised = allowFormAction(req, res, "https://x.example/'unsafe-inline'; script-src *");
    res.json({ nonce: res.locals.cspNonce, ok, sanitised });
  });
  return server;
}

describe('CSP with a per-request nonce', () => {
  it('carries the nonce in script-src and the strict directives', async () => {
    const res = await request(app()).get('/page');
    const csp = directives(res.headers['content-security-policy'] as string);
    expect(csp.get('default-src')).toBe("'none'");
    expect(csp.get('script-src')).toBe(`'nonce-${res.body.nonce}'`);
    expect(csp.get('style-src')).toBe("'self'");
    expect(csp.get('img-src')).toBe("'self' data:");
    expect(csp.get('frame-ancestors')).toBe("'none'");
    expect(csp.get('base-uri')).toBe("'none'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('limits form-action to self plus the origins of the given targets', async () => {
    const res = await request(app()).get('/page');
    const csp = directives(res.headers['content-security-policy'] as string);
    expect(csp.get('form-action')).toBe("'self' https://gateway.example");
  });

  it('uses a fresh nonce on every request', async () => {
    const a = await request(app()).get('/page');
    const b = await request(app()).get('/page');
    expect(a.body.nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(a.body.nonce).not.toBe(b.body.nonce);
  });

  it('widens form-action to an issuer origin found later, keeping the nonce, and refuses injection', async () => {
    const res = await request(app()).get('/issuer');
    expect(res.body).toMatchObject({ ok: true, sanitised: true });
    const header = res.headers['content-security-policy'] as string;
    const csp = directives(header);
    expect(csp.get('form-action')).toBe("'self' https://issuer.example:8443 https://x.example");
    expect(csp.get('script-src')).toBe(`'nonce-${res.body.nonce}'`);
    expect(header).not.toContain('unsafe-inline');
    expect(header.match(/script-src/g)).toHaveLength(1);
  });

  it('can limit form-action to one target origin', async () => {
    const server = express();
    server.get('/only', cspMiddleware(() => ['https://gateway.example/']), (req, res) => {
      allowFormAction(req, res, 'https://issuer.example/3ds', { only: true });
      res.end();
    });
    const res = await request(server).get('/only');
    expect(directives(res.headers['content-security-policy'] as string).get('form-action')).toBe("'self' https://issuer.example");
  });

  it('originOf accepts only absolute http(s) URLs', () => {
    expect(originOf('http://localhost:4010/v1/checkout')).toBe('http://localhost:4010');
    expect(originOf('data:text/html,hi')).toBeNull();
    expect(originOf('/relative')).toBeNull();
  });
});
