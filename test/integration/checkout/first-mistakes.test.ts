/**
 * The two mistakes that used to fail silently, against the real sandbox over real HTTP: a wrong
 * sign key (the gateway refuses with I0013) is logged as ERR_GATEWAY_BAD_SIGNATURE with the fix,
 * once however many payments it refuses; a router mounted where publicUrl does not say is logged
 * as ERR_CONFIG_PUBLIC_URL with both paths on the first request it sees.
 */
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckoutKit, createMemoryStore, type CheckoutKit, type Logger } from '../../../server/index.js';
import { listenFirst, payByCard, startGateway, Visitor, type LateServer, type TestGateway } from '../examples/support.js';

const TOKEN_SECRET = 'first-mistakes-token-secret-0123456789';

interface Line { level: string; msg: string | undefined; obj: Record<string, unknown> }

function recordingLogger(lines: Line[]): Logger {
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string): void => {
    lines.push({ level, msg, obj });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('mistakes that explain themselves', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function shop(options: { signKey?: string; mountAt: string; publicPath: string }): Promise<{ gateway: TestGateway; server: LateServer; kit: CheckoutKit; lines: Line[] }> {
    const lines: Line[] = [];
    const gateway = await startGateway();
    cleanups.push(() => gateway.close());
    const server = await listenFirst();
    cleanups.push(() => server.close());
    const kit = createCheckoutKit({
      gateway: { ...gateway.account, signKey: options.signKey ?? gateway.account.signKey },
      publicUrl: `${server.url}${options.publicPath}`,
      tokenSecret: TOKEN_SECRET,
      store: createMemoryStore(),
      logger: recordingLogger(lines),
      sweeper: { enabled: false },
    });
    cleanups.push(() => kit.close());
    const app = express();
    app.use(options.mountAt, kit.router);
    server.serve(app);
    return { gateway, server, kit, lines };
  }

  const order = (n: number) => ({
    orderNo: `MISTAKE-${String(Date.now())}-${String(n)}`,
    amount: 1250,
    currency: 'EUR',
    items: [{ name: 'Mug', sku: 'MUG-1', unitPrice: 1250, quantity: 1 }],
    shopper: { id: 'c-1', email: 'ada@example.com' },
  });

  it('logs a wrong sign key as ERR_GATEWAY_BAD_SIGNATURE with the fix, once for many refusals', async () => {
    const { kit, lines } = await shop({ signKey: 'not-the-account-sign-key', mountAt: '/checkout', publicPath: '/checkout' });
    for (const n of [1, 2, 3]) {
      const { payUrl, order: created } = await kit.createPayment(order(n));
      const reply = await payByCard(new Visitor(), payUrl);
      expect(reply.status).toBe(502);
      expect(reply.text).toContain('The payment provider refused the payment request');
      expect((await kit.store.get(created.id))?.state).toBe('failed');
    }
    const refusals = lines.filter((l) => l.level === 'error' && l.obj.code === 'ERR_GATEWAY_BAD_SIGNATURE');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]?.level).toBe('error');
    expect(refusals[0]?.msg).toContain('check signKey for account 701001010');
    expect(refusals[0]?.obj).toMatchObject({ gatewayCode: 'I0013', accountId: '701001010', docs: 'docs/errors.md#err_gateway_bad_signature' });
    expect(JSON.stringify(lines)).not.toContain('not-the-account-sign-key');
  });

  it('logs a router mounted away from publicUrl as ERR_CONFIG_PUBLIC_URL with both paths, once', async () => {
    const { server, lines } = await shop({ mountAt: '/', publicPath: '/checkout' });
    const visitor = new Visitor();
    await visitor.get(`${server.url}/pay/not-a-token`).catch(() => undefined);
    await visitor.get(`${server.url}/result/not-a-token`).catch(() => undefined);
    const mismatches = lines.filter((l) => l.obj.code === 'ERR_CONFIG_PUBLIC_URL');
    expect(mismatches).toHaveLength(1);
    expect(mismatches[0]?.level).toBe('error');
    expect(mismatches[0]?.obj).toMatchObject({ expected: { path: '/checkout' }, actual: { path: '/' } });
    expect(mismatches[0]?.msg).toMatch(/mounted at 127\.0\.0\.1:\d+\/ but publicUrl says 127\.0\.0\.1:\d+\/checkout/);
    expect(mismatches[0]?.msg).toContain("app.use('/checkout', kit.router)");
  });

  it('says nothing when the router is where publicUrl says', async () => {
    const { server, lines } = await shop({ mountAt: '/checkout', publicPath: '/checkout' });
    await new Visitor().get(`${server.url}/checkout/pay/not-a-token`).catch(() => undefined);
    expect(lines.filter((l) => l.obj.code === 'ERR_CONFIG_PUBLIC_URL')).toHaveLength(0);
  });
});
