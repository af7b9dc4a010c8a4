import { afterEach, describe, expect, it } from 'vitest';
import { redact, type Logger } from '../../../server/logging.js';
import { clientFor, CVV, directInput, EXP_MONTH, EXP_YEAR, jsonOf, PAN, useRecordingServer } from './support.js';
import { containsStandalone } from '../../helpers/secrets.js';

const server = useRecordingServer();
afterEach(() => {
  // Every operation of the interface is a POST.
  expect(server.requests.map((r) => r.method).filter((m) => m !== 'POST')).toEqual([]);
});

function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    lines.push(JSON.stringify({ level, msg, ...obj }));
  };
  return { logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') }, lines };
}

/** Drops the parts of a text that are numbers by nature (ports, line:column in stack frames). */
const scrub = (text: string): string => text.replace(/https?:\/\/[^\s"')]+/g, '<url>').replace(/:\d+:\d+/g, ':<line>');

function expectNoCardData(text: string): void {
  const clean = scrub(text);
  expect(clean).not.toContain(PAN);
  expect(containsStandalone(clean, CVV)).toBe(false);
  expect(containsStandalone(clean, EXP_YEAR)).toBe(false);
  expect(clean).not.toMatch(new RegExp(`"expiration_month":"${EXP_MONTH}"`));
}

describe('card data never leaves through logs or errors', () => {
  for (const failure of ['timeout', '500', 'malformed'] as const) {
    it(`on a direct authorise that fails (${failure})`, async () => {
      server.reply(
        failure === 'timeout' ? { hang: true } : failure === '500' ? { status: 500, body: `{"message":"card ${PAN} rejected"}` } : { status: 200, body: `<respon><card>${PAN}</card>` },
      );
      const { logger, lines } = capturingLogger();
      const error: unknown = await clientFor(server, { logger, timeoutMs: 1000 })
        .payments.authorise(directInput(`LEAK-${failure}`))
        .catch((e: unknown) => e);
      await server.waitForRequests(1);

      // The card data really was on the wire, so its absence below is meaningful.
      expect(jsonOf(server.requests[0])).toMatchObject({ card: PAN, security_code: CVV, expiration_year: EXP_YEAR });
      expect(error).toBeInstanceOf(Error);
      expect(lines.some((l) => l.includes('gateway.request'))).toBe(true);

      const thrown = error as Error;
      expect(thrown.message).toContain(`LEAK-${failure}`);
      expectNoCardData(lines.join('\n'));
      expectNoCardData(thrown.message);
      expectNoCardData(JSON.stringify(thrown));
      expectNoCardData(thrown.stack ?? '');
      expectNoCardData(JSON.stringify(redact(thrown)));
    });
  }

  it('on input validation errors about the card fields', async () => {
    const { logger, lines } = capturingLogger();
    const error: unknown = await clientFor(server, { logger })
      .payments.authorise(directInput('LEAK-V', { card: `${PAN}x`, security_code: `${CVV}9`, expiration_year: `${EXP_YEAR}1` }))
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(0);
    expect((error as Error).message).toMatch(/card|security_code|expiration_year/);
    expectNoCardData(JSON.stringify(error));
    expectNoCardData((error as Error).message);
    expectNoCardData(lines.join('\n'));
  });
});
