/**
 * `npm run screenshots`: regenerates the README's screenshots in docs/images/ from a real run of
 * the demo store (temp data directory, sandbox on a free port) in the system Chromium, at a
 * fixed viewport: the pay page, the 3-D Secure challenge, the admin's order page and its
 * dashboard (also at phone width, 390 px, the whole page), the admin's orders list at phone
 * width and a pay page in Dutch.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDemoStore } from '../examples/demo-store/listen.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT_DIR = join(process.cwd(), 'docs', 'images');
const VIEWPORT = { width: 1100, height: 900 };
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const dir = mkdtempSync(join(tmpdir(), 'demo-screenshots-'));
const running = await startDemoStore({ port: 0, sandboxPort: 0, dataDir: dir, notifyTimeScale: 0.001, sweeper: false, env: {} });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true });
try {
  mkdirSync(OUT_DIR, { recursive: true });
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, locale: 'en-GB' });
  const page = await context.newPage();
  const shot = async (name: string, fullPage = false): Promise<void> => {
    const path = join(OUT_DIR, `${name}.png`);
    await page.screenshot({ path, fullPage });
    process.stdout.write(`wrote ${path}\n`);
  };
  const { url } = running;

  for (const [sku, quantity] of [['POT-IRON', '1'], ['TEA-SENCHA', '2']] as const) {
    await page.goto(`${url}/products/${sku}`);
    await page.selectOption('#quantity', quantity);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.waitForURL(`${url}/cart`);
  }
  await page.goto(`${url}/cart/checkout`);
  await page.fill('#email', 'ada@example.com');
  await page.fill('#first_name', 'Ada');
  await page.fill('#last_name', 'Lovelace');
  await page.fill('#address', 'Keizersgracht 1');
  await page.fill('#postal_code', '1015 CJ');
  await page.fill('#city', 'Amsterdam');
  await page.check('#method-card');
  await page.getByRole('button', { name: /Continue to payment/ }).click();
  await page.waitForURL(/\/pay$/);
  await page.fill('#card', '4000 0000 0000 3220');
  await page.fill('#expiration_month', '12');
  await page.fill('#expiration_year', String(new Date().getUTCFullYear() + 3));
  await page.fill('#security_code', '123');
  await page.locator('#security_code').blur();
  await shot('checkout');

  await page.getByRole('button', { name: /^Pay / }).click();
  await page.waitForURL(/\/issuer\/3ds\//);
  await shot('3ds-challenge');
  await page.getByRole('button', { name: 'Pass authentication' }).click();
  await page.locator('h1', { hasText: 'paid' }).waitFor();

  await page.goto(`${url}/admin/login`);
  await page.fill('#user', running.store.adminLogin.user);
  await page.fill('#password', running.store.adminLogin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/admin/`);
  const [target] = await running.store.kit.store.list({ limit: 1 });
  if (target === undefined) throw new Error('no order to show');
  await page.goto(`${url}/admin/orders/${target.id}`);
  await page.fill('input[name="refund_amount"]', '17.80');
  await page.fill('input[name="refund_reason"]', 'Tea arrived damaged');
  await page.getByRole('button', { name: 'Refund' }).click();
  await page.locator('p.flash').waitFor();
  await shot('admin-order');

  await page.goto(`${url}/admin/dashboard`);
  await shot('admin-dashboard');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await shot('admin-dashboard-phone', true);

  // The orders list on a phone: stacked rows keep number, amount, state and card.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'en-GB', storageState: await context.storageState() });
  const phonePage = await phone.newPage();
  await phonePage.goto(`${url}/admin/`);
  await phonePage.screenshot({ path: join(OUT_DIR, 'admin-phone.png') });
  process.stdout.write(`wrote ${join(OUT_DIR, 'admin-phone.png')}\n`);

  // A shopper whose browser asks for Dutch: the kit's form speaks Dutch inside the shop's page.
  const dutch = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, locale: 'nl-NL' });
  const dutchPage = await dutch.newPage();
  const { payUrl } = await running.store.kit.createPayment({
    orderNo: `KL-NL-${String(Date.now())}`, amount: 4450, currency: 'EUR', locale: 'nl',
    items: [{ name: 'Cast-iron teapot', sku: 'POT-IRON', unitPrice: 4450, quantity: 1 }],
    shopper: { id: 'screenshot', email: 'anne@example.nl', firstName: 'Anne', lastName: 'de Vries' },
    billing: { country: 'NL', city: 'Utrecht', address: 'Oudegracht 1', postalCode: '3511 AA' },
    methods: ['card', 'apm', 'hosted'],
  });
  await dutchPage.goto(payUrl);
  await dutchPage.locator('#card').waitFor();
  await dutchPage.screenshot({ path: join(OUT_DIR, 'pay-nl.png') });
  process.stdout.write(`wrote ${join(OUT_DIR, 'pay-nl.png')}\n`);
} finally {
  await browser.close();
  await running.close();
  rmSync(dir, { recursive: true, force: true });
}
