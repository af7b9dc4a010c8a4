/**
 * The quick start as a new user runs it: the package packed and installed into a fresh app, the
 * README's integration code blocks written into it verbatim (taken from between the quickstart
 * markers), the sandbox started with the package's own bin, and an order paid over HTTP. The
 * route files of examples/routes compile against the packed package's types, and the CLI's
 * commands run from the installed bin with exit codes scripts can use.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedBlock, tsBlocks } from '../../helpers/markdown.js';
import { payByCard, Visitor } from '../examples/support.js';
import { freePort, installPackedApp, ROOT, runToEnd, start, type PackedApp, type Running } from './packed-app.js';

const FILE_NAME_RE = /^\/\/ ([\w-]+\.ts)\b/;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SIGN_KEY = `packed-${randomUUID()}`;

interface SandboxState {
  notifications: { id: string; orderNo: string; status: string; webhooksType: string }[];
  transactions: { orderNo: string; paymentStatus: string }[];
}

describe('the packed package in a fresh app', () => {
  let app: PackedApp;
  let sandbox: Running;
  let shop: Running;
  let gatewayUrl = '';
  let shopUrl = '';
  let paidOrderNo = '';
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    app = installPackedApp(['express', 'zod', 'tsx', '@types/express', '@types/node']);
    cleanups.push(() => {
      app.remove();
    });
    const quickStart = markedBlock(README, 'quickstart');
    for (const code of tsBlocks(quickStart)) {
      const name = FILE_NAME_RE.exec(code)?.[1];
      if (name === undefined) throw new Error(`a quick start block without a file name: ${code.slice(0, 60)}`);
      writeFileSync(join(app.dir, name), code);
    }
    sandbox = start(app.bin, ['sandbox', '--port', '0', '--quiet'], app.dir, { GATEWAY_SIGN_KEY: SIGN_KEY });
    cleanups.push(() => sandbox.stop());
    gatewayUrl = (await sandbox.waitFor(/Sandbox gateway on (http:\/\/\S+)/))[1] ?? '';
    const port = await freePort();
    shopUrl = `http://localhost:${String(port)}`;
    shop = start(join(app.dir, 'node_modules', '.bin', 'tsx'), ['server.ts'], app.dir, {
      PORT: String(port), GATEWAY_BASE_URL: gatewayUrl, GATEWAY_SIGN_KEY: SIGN_KEY, CHECKOUT_TOKEN_SECRET: '',
    });
    cleanups.push(() => shop.stop());
    await shop.waitFor(/shop on http/);
  }, 600_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('runs the README quick start verbatim and takes a card payment', async () => {
    expect(readdirSync(app.dir).filter((n) => n.endsWith('.ts')).sort()).toEqual(['kit.ts', 'server.ts']);
    const visitor = new Visitor();
    const home = await visitor.get(`${shopUrl}/`);
    expect(home.text).toContain('action="/cart/checkout"');
    const first = await visitor.post(`${shopUrl}/cart/checkout`, {}, false);
    expect(first.status).toBe(303);
    expect(first.location?.startsWith(`${shopUrl}/checkout/pay/`)).toBe(true);
    const result = await payByCard(visitor, first.location ?? '');
    expect(result.text).toContain('Payment received');
    paidOrderNo = (await shop.waitFor(/paid: ship order (\S+) \(event/))[1] ?? '';
    expect(paidOrderNo).toMatch(/^A-\d+-/);

    // A second checkout is a new order, not the first one again.
    const second = await visitor.post(`${shopUrl}/cart/checkout`, {}, false);
    expect(second.status).toBe(303);
    expect(second.location).not.toBe(first.location);

    // With no CHECKOUT_TOKEN_SECRET the app generated and kept one, and the default logger said so on stderr.
    expect(readFileSync(join(app.dir, 'data', 'checkout-token-secret'), 'utf8').trim().length).toBeGreaterThanOrEqual(32);
    expect(shop.stderr()).toMatch(/"code":"ERR_CONFIG_TOKEN_SECRET"[^\n]*DEVELOPMENT secret/);
    const state = (await (await fetch(`${gatewayUrl}/_sandbox/state`)).json()) as SandboxState;
    expect(state.transactions.filter((t) => t.orderNo === paidOrderNo)).toHaveLength(1);
  });

  it('compiles every file of examples/routes against the packed package', () => {
    const dir = join(app.dir, 'routes');
    mkdirSync(dir, { recursive: true });
    const files = readdirSync(join(ROOT, 'examples', 'routes')).filter((n) => n.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const name of files) {
      const code = readFileSync(join(ROOT, 'examples', 'routes', name), 'utf8');
      expect(code, name).not.toMatch(/from '\.\.\//);
      copyFileSync(join(ROOT, 'examples', 'routes', name), join(dir, name));
    }
    // skipLibCheck as `tsc --init` sets it: the package's declarations name better-sqlite3 and pg, whose types a shop need not install.
    writeFileSync(join(app.dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
      include: ['routes/*.ts', '*.ts'],
    }));
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app.dir, 'tsconfig.json')], { cwd: app.dir, encoding: 'utf8', timeout: 240_000 });
    expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe('');
    expect(tsc.status).toBe(0);
  }, 300_000);

  describe('the bin', () => {
    it('answers --help everywhere with exit code 0, and a wrong command with 2', async () => {
      for (const args of [['--help'], ['sandbox', '--help'], ['doctor', '--help'], ['notify', '--help'], ['notify', 'resend', '--help'], ['notify', 'trigger', '--help']]) {
        const run = await runToEnd(app.bin, args, app.dir);
        expect(run.code, args.join(' ')).toBe(0);
        expect(run.stdout, args.join(' ')).toMatch(/^Usage: acquiring-checkout-kit/);
      }
      const wrong = await runToEnd(app.bin, ['pay-everything'], app.dir);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain("unknown command 'pay-everything'");
      const badFlag = await runToEnd(app.bin, ['sandbox', '--capture-mode', 'sometimes'], app.dir);
      expect(badFlag.code).toBe(2);
      expect(badFlag.stderr).toContain('--capture-mode must be auto or manual');
    });

    it('sandbox prints the settings and the test cards', () => {
      expect(sandbox.stdout()).toContain(`GATEWAY_BASE_URL=${gatewayUrl}`);
      expect(sandbox.stdout()).toContain('4242424242424242  approved');
      expect(sandbox.stdout()).toContain('4000000000003220  3-D Secure challenge');
    });

    it('doctor passes a right configuration and names each mistake with its fix', async () => {
      const env = { GATEWAY_BASE_URL: gatewayUrl, GATEWAY_SIGN_KEY: SIGN_KEY, CHECKOUT_TOKEN_SECRET: 'a'.repeat(40), PUBLIC_URL: shopUrl };
      const good = await runToEnd(app.bin, ['doctor'], app.dir, env);
      expect(good.stdout).toMatch(/^ok {4}sign key: the gateway accepted a signed query for account 701001010$/m);
      expect(good.stdout).toMatch(/^ok {4}router mount: the kit's router answers at http:\/\/localhost:\d+\/checkout \(HTTP 4\d\d/m);
      expect(good.stdout).toContain('No problem found.');
      expect(good.code).toBe(0);

      const wrongKey = await runToEnd(app.bin, ['doctor', '--sign-key', 'not-the-key'], app.dir, env);
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stdout).toMatch(/^FAIL {2}sign key: ERR_GATEWAY_BAD_SIGNATURE: .*I0013/m);
      expect(wrongKey.stdout).toContain('fix: check GATEWAY_SIGN_KEY for account 701001010');

      const wrongMount = await runToEnd(app.bin, ['doctor', '--public-url', `${shopUrl}/shop/checkout`], app.dir, env);
      expect(wrongMount.code).toBe(1);
      expect(wrongMount.stdout).toMatch(/^FAIL {2}router mount: ERR_CONFIG_PUBLIC_URL: nothing answers at http:\/\/localhost:\d+\/shop\/checkout\/notify/m);

      const relative = await runToEnd(app.bin, ['doctor', '--public-url', '/checkout'], app.dir, env);
      expect(relative.code).toBe(1);
      expect(relative.stdout).toMatch(/^FAIL {2}options: ERR_CONFIG_PUBLIC_URL: Invalid option "publicUrl"/m);
    });

    it('notify resend and trigger make the sandbox notify the shop', async () => {
      expect(paidOrderNo).not.toBe('');
      const state = async (): Promise<SandboxState> => (await (await fetch(`${gatewayUrl}/_sandbox/state`)).json()) as SandboxState;
      const before = (await state()).notifications.filter((n) => n.orderNo === paidOrderNo).length;

      const twice = await runToEnd(app.bin, ['notify', 'resend', paidOrderNo, '--twice', '--sandbox', gatewayUrl], app.dir);
      expect(twice.stderr).toBe('');
      expect(twice.code).toBe(0);
      expect(twice.stdout).toContain(`sent twice: payment notification`);
      const afterTwice = (await state()).notifications.filter((n) => n.orderNo === paidOrderNo);
      expect(afterTwice.length).toBe(before + 2);

      const chargeback = await runToEnd(app.bin, ['notify', 'trigger', 'chargeback', paidOrderNo, '--reason', 'Not received', '--sandbox', gatewayUrl], app.dir);
      expect(chargeback.code).toBe(0);
      expect(chargeback.stdout).toContain(`triggered: chargeback notification for order ${paidOrderNo}`);
      const afterChargeback = (await state()).notifications.filter((n) => n.orderNo === paidOrderNo);
      expect(afterChargeback.some((n) => n.webhooksType === 'chargeback')).toBe(true);

      const unknown = await runToEnd(app.bin, ['notify', 'resend', 'NO-SUCH-ORDER', '--sandbox', gatewayUrl], app.dir);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^error: the sandbox has sent no notification for "NO-SUCH-ORDER"/);
      const badType = await runToEnd(app.bin, ['notify', 'trigger', 'refund', paidOrderNo, '--sandbox', gatewayUrl], app.dir);
      expect(badType.code).toBe(2);
      const down = await runToEnd(app.bin, ['notify', 'resend', paidOrderNo, '--sandbox', 'http://127.0.0.1:9'], app.dir);
      expect(down.code).toBe(1);
      expect(down.stderr).toContain('cannot reach the sandbox at http://127.0.0.1:9');
    });
  });

  it('keeps the packed files to dist, views and public', () => {
    expect(existsSync(join(app.dir, 'node_modules', 'acquiring-checkout-kit', 'dist', 'server', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(app.dir, 'node_modules', 'acquiring-checkout-kit', 'server'))).toBe(false);
  });
});
