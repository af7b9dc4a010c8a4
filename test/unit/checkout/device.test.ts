import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { deviceData, deviceFormSchema, normaliseIp, parseDeviceFields, serverDeviceFields } from '../../../server/checkout/device.js';
import { deviceTypeOf, firstLanguage } from '../../../server/checkout/device-ua.js';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

const GOOD = {
  os: 'macOS',
  browser: 'Firefox',
  browser_lang: 'fr-CH',
  time_zone: '-60',
  resolution: '390x844',
  color_depth: '24',
  cookie_new: 'a'.repeat(32),
  cookie_old: '',
  device_fingerprint: 'f'.repeat(64),
  session_id: 'b'.repeat(32),
  challenge_window_size: '02',
};

/** An app that answers with the server-side fields of each request. */
function echoApp(trustProxy: boolean) {
  const app = express();
  app.set('trust proxy', trustProxy);
  app.use(express.urlencoded({ extended: false }));
  app.post('/', (req, res) => {
    res.json(deviceData(req, req.body));
  });
  app.get('/', (req, res) => {
    res.json(serverDeviceFields(req));
  });
  return app;
}

describe('device form fields', () => {
  it('keeps valid browser values', () => {
    const { fields, dropped } = parseDeviceFields(GOOD);
    expect(dropped).toEqual([]);
    expect(fields).toEqual({ ...GOOD, cookie_old: undefined });
  });

  it('drops bad values (never a 400) and names them', () => {
    const { fields, dropped } = parseDeviceFields({
      ...GOOD,
      challenge_window_size: '09',
      resolution: '<script>',
      device_fingerprint: 'not-hex',
      os: 'x'.repeat(51),
      session_id: 'a b',
    });
    expect(dropped.sort()).toEqual(['challenge_window_size', 'device_fingerprint', 'os', 'resolution', 'session_id']);
    expect(fields.challenge_window_size).toBeUndefined();
    expect(fields.resolution).toBeUndefined();
    expect(fields.browser).toBe('Firefox');
  });

  it('ignores non-string values and a missing body', () => {
    expect(parseDeviceFields({ os: ['a', 'b'], color_depth: 24 }).dropped.sort()).toEqual(['color_depth', 'os']);
    expect(parseDeviceFields(undefined)).toEqual({ fields: {}, dropped: [] });
  });

  it('the object schema catches bad values instead of failing', () => {
    const parsed = deviceFormSchema.parse({ ...GOOD, color_depth: 'deep' });
    expect(parsed.color_depth).toBeUndefined();
    expect(parsed.browser_lang).toBe('fr-CH');
  });
});

describe('server-side device fields', () => {
  it('uses the socket address when trust proxy is off, whatever X-Forwarded-For says', async () => {
    const res = await request(echoApp(false)).get('/').set('X-Forwarded-For', '203.0.113.7').set('User-Agent', DESKTOP);
    expect(res.body.shopper_ip).not.toBe('203.0.113.7');
    expect(res.body.shopper_ip).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(res.body).toMatchObject({ device_type: 'PC', order_type: 'WEB', user_agent: DESKTOP, platform_source: 'WEB' });
  });

  it('uses X-Forwarded-For when trust proxy is on', async () => {
    const res = await request(echoApp(true)).get('/').set('X-Forwarded-For', '203.0.113.7').set('User-Agent', IPHONE);
    expect(res.body.shopper_ip).toBe('203.0.113.7');
    expect(res.body.device_type).toBe('MOBILE');
  });

  it('fills defaults from the headers when the script did not run', async () => {
    const res = await request(echoApp(false))
      .post('/')
      .type('form')
      .set('User-Agent', IPHONE)
      .set('Accept-Language', 'de-DE,de;q=0.9')
      .set('Accept', 'text/html')
      .send({ resolution: 'huge' });
    expect(res.body.dropped).toEqual(['resolution']);
    expect(res.body.data).toMatchObject({
      os: 'iOS',
      browser: 'Safari',
      browser_lang: 'de-DE',
      accept: 'text/html',
      resolution: '',
      challenge_window_size: '05',
      device_type: 'MOBILE',
    });
  });

  it('prefers the browser values when valid', async () => {
    const res = await request(echoApp(false)).post('/').type('form').set('User-Agent', DESKTOP).send(GOOD);
    expect(res.body.data).toMatchObject({ ...GOOD, device_type: 'PC' });
  });

  it('normalises IPv4-mapped addresses and classifies user agents', () => {
    expect(normaliseIp('::ffff:198.51.100.4')).toBe('198.51.100.4');
    expect(normaliseIp('2001:db8::1')).toBe('2001:db8::1');
    expect(normaliseIp(undefined)).toBe('');
    expect(deviceTypeOf('Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36')).toBe('MOBILE');
    expect(deviceTypeOf(DESKTOP)).toBe('PC');
    expect(firstLanguage('en-GB;q=1, en;q=0.8')).toBe('en-GB');
    expect(firstLanguage('*')).toBe('');
  });
});
