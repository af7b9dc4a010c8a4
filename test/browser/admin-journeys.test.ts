/**
 * Staff at work in the demo store's admin, in a real browser: capture of an authorised payment
 * (sandbox in manual capture mode), a partial then a full refund, and a batch capture of several
 * orders. Each step checks what staff and the shopper see and the stored order.
 */
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './a11y.js';
import { HAS_CHROMIUM, newShopper, useJourneyEnv, type StoreUnderTest } from './harness.js';
import { buyWithCard, flashText, openAdminOrder, signInAsStaff, waitForHeading, waitForState } from './shopper.js';

describe.skipIf(!HAS_CHROMIUM)('staff journeys in the demo store admin (Chromium)', () => {
  const env = useJourneyEnv({ manual: { captureMode: 'manual' }, auto: { captureMode: 'auto' } });
  let browser: Browser;
  let manual: StoreUnderTest;
  let auto: StoreUnderTest;
  beforeAll(() => {
    ({ browser, stores: { manual, auto } } = env);
  });

  it('refuses the admin without the demo login and signs staff in and out', async () => {
    const staff = await newShopper(browser);
    const { page } = staff;
    const refused = await page.request.get(`${manual.url}/admin/orders/anything`, { maxRedirects: 0 });
    expect(refused.status()).toBe(303);
    expect(refused.headers().location).toBe('/admin/login');

    await page.goto(`${manual.url}/admin/login`);
    await page.fill('#user', 'staff');
    await page.fill('#password', 'wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.locator('.field-error').textContent()).toContain('do not match');

    await signInAsStaff(page, manual);
    expect(await page.locator('h1').textContent()).toBe('Orders');
    await page.goto(`${manual.url}/admin/login`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(`${manual.url}/admin/`);
    await page.waitForURL(`${manual.url}/admin/login`);
    // The one problem is the browser reporting the refused sign-in's 401 status.
    expect(staff.problems).toEqual([
      { kind: 'console', text: 'Failed to load resource: the server responded with a status of 401 (Unauthorized)', url: `${manual.url}/admin/login` },
    ]);
    await staff.close();
  });

  it('captures an authorised payment: staff see it paid, so does the shopper', async () => {
    const shopper = await newShopper(browser);
    const orderId = await buyWithCard(shopper.page, manual, 'POT-IRON');
    expect(await waitForHeading(shopper.page, 'authorised')).toBe('Thank you, your payment is authorised');
    await waitForState(manual, orderId, ['authorized']);

    const staff = await newShopper(browser);
    await signInAsStaff(staff.page, manual);
    await openAdminOrder(staff.page, manual, orderId);
    expect(await staff.page.locator('.facts').textContent()).toContain('authorized');
    await staff.page.getByRole('button', { name: /^Capture/ }).click();
    expect(await flashText(staff.page)).toContain('The order is now paid');
    await staff.screenshot('admin-captured');

    const order = await waitForState(manual, orderId, ['paid']);
    expect(order.capturedAmount).toBe(5900);
    const events = await manual.store.kit.store.listEvents(orderId);
    expect(events.some((e) => e.type === 'admin_action' && e.actor === 'staff')).toBe(true);

    await shopper.page.goto(`${manual.url}/orders/${orderId}`);
    expect(await shopper.page.locator('h1').textContent()).toBe('Thank you, your order is paid');
    expect([...shopper.problems, ...staff.problems]).toEqual([]);
    await Promise.all([shopper.close(), staff.close()]);
  });

  it('refunds part of a payment, then the rest: partially refunded, then refunded', async () => {
    const shopper = await newShopper(browser);
    const orderId = await buyWithCard(shopper.page, auto, 'TEA-SENCHA', 4);
    await waitForState(auto, orderId, ['paid']);

    const staff = await newShopper(browser);
    await signInAsStaff(staff.page, auto);
    await openAdminOrder(staff.page, auto, orderId);
    await staff.page.fill('input[name="refund_amount"]', '8.90');
    await staff.page.fill('input[name="refund_reason"]', 'One pack arrived open');
    await staff.page.getByRole('button', { name: 'Refund' }).click();
    expect(await flashText(staff.page)).toContain('The order is now partially refunded');
    let order = await waitForState(auto, orderId, ['partially_refunded']);
    expect(order.refundedAmount).toBe(890);
    await staff.screenshot('admin-partial-refund');

    await shopper.page.goto(`${auto.url}/orders/${orderId}`);
    expect(await shopper.page.locator('h1').textContent()).toBe('Part of your payment was refunded');
    expect(await shopper.page.locator('table.lines').textContent()).toContain('€8.90');

    // The form now offers what remains.
    expect(await staff.page.inputValue('input[name="refund_amount"]')).toBe('26.70');
    await staff.page.getByRole('button', { name: 'Refund' }).click();
    expect(await flashText(staff.page)).toContain('The order is now refunded');
    order = await waitForState(auto, orderId, ['refunded']);
    expect(order.refundedAmount).toBe(3560);
    await staff.screenshot('admin-full-refund');

    await shopper.page.goto(`${auto.url}/orders/${orderId}`);
    expect(await shopper.page.locator('h1').textContent()).toBe('Your payment was refunded');
    expect([...shopper.problems, ...staff.problems]).toEqual([]);
    await Promise.all([shopper.close(), staff.close()]);
  });

  it('captures part of an authorisation: a refused amount stays on the order page, then 20.00 of 59.00 is captured and the rest released', async () => {
    const shopper = await newShopper(browser);
    const orderId = await buyWithCard(shopper.page, manual, 'POT-IRON');
    await waitForState(manual, orderId, ['authorized']);

    const staff = await newShopper(browser);
    await signInAsStaff(staff.page, manual);
    await openAdminOrder(staff.page, manual, orderId);
    const form = staff.page.locator('form.capture');
    expect(await form.textContent()).toContain('Authorised 59.00 EUR · already captured 0.00 EUR');
    expect(await axeViolations(staff.page)).toEqual([]);
    const amount = staff.page.getByLabel(/^Capture amount/);
    expect(await amount.inputValue()).toBe('59.00');

    await amount.fill('60.00');
    await staff.page.getByRole('button', { name: 'Capture' }).click();
    const problem = staff.page.locator('#action-problem');
    expect(await problem.textContent()).toContain('Capture amount: 60.00 EUR is more than the 59.00 EUR authorised and not yet captured');
    expect(await staff.page.getByLabel(/^Capture amount/).getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(staff.page)).toEqual([]);
    expect((await manual.store.kit.store.get(orderId))?.state).toBe('authorized');

    await staff.page.getByLabel(/^Capture amount/).fill('20.00');
    await staff.page.getByRole('button', { name: 'Capture' }).click();
    expect(await flashText(staff.page)).toContain('20.00 EUR captured, the other 39.00 EUR of the authorisation released');
    expect(await staff.page.locator('.facts').textContent()).toContain('39.00 EUR of the authorisation, not captured');
    expect(await staff.page.getByLabel(/^Refund amount/).inputValue()).toBe('20.00');
    await staff.screenshot('admin-partially-captured');

    const order = await waitForState(manual, orderId, ['paid']);
    expect(order.capturedAmount).toBe(2000);
    expect(manual.store.sandbox.ledger.transaction(order.orderNo)?.capturedAmount).toBe(2000);
    // The refused attempt is the one problem the browser reports (its 400 status).
    expect(shopper.problems).toEqual([]);
    expect(staff.problems.filter((p) => !p.text.includes('status of 400'))).toEqual([]);
    await Promise.all([shopper.close(), staff.close()]);
  }, 120_000); // two accessibility audits on a shared machine

  it('captures several authorised orders in one batch job', async () => {
    const shopper = await newShopper(browser);
    const ids: string[] = [];
    for (const sku of ['MUG-STONE', 'TOWEL-LINEN', 'GLASS-SET']) {
      const id = await buyWithCard(shopper.page, manual, sku);
      await waitForState(manual, id, ['authorized']);
      ids.push(id);
    }
    const orders = await Promise.all(ids.map((id) => manual.store.kit.store.get(id)));
    const orderNos = orders.map((o) => o!.orderNo);

    const staff = await newShopper(browser);
    await signInAsStaff(staff.page, manual);
    for (const orderNo of orderNos) await staff.page.check(`input[name="orders"][value="${orderNo}"]`);
    await staff.page.selectOption('select[name="action"]', 'capture');
    await staff.page.getByRole('button', { name: 'Start batch job' }).click();
    await staff.page.waitForURL(/\/admin\/batch\/[^/?]+/);
    expect(await flashText(staff.page)).toContain('job started for 3 orders');
    // The job page refreshes itself until the job is done.
    await staff.page.locator('dd[data-status="done"]').waitFor({ timeout: 20_000 });
    for (const orderNo of orderNos) {
      expect(await staff.page.getAttribute(`tr[data-order="${orderNo}"]`, 'data-status')).toBe('ok');
    }
    await staff.screenshot('admin-batch-capture');

    for (const id of ids) {
      const order = await waitForState(manual, id, ['paid']);
      expect(order.capturedAmount).toBe(order.amount);
    }
    expect([...shopper.problems, ...staff.problems]).toEqual([]);
    await Promise.all([shopper.close(), staff.close()]);
  });

  it('the dashboard on a phone: the payment just made counted, the chart fits 390 px, nothing scrolls sideways', async () => {
    const shopper = await newShopper(browser);
    const orderId = await buyWithCard(shopper.page, auto, 'MUG-STONE');
    await waitForState(auto, orderId, ['paid']);

    const staff = await newShopper(browser, { width: 390, height: 844 });
    await signInAsStaff(staff.page, auto);
    await staff.page.getByRole('link', { name: 'Dashboard' }).click();
    await staff.page.waitForURL(`${auto.url}/admin/dashboard`);
    expect(await staff.page.locator('h1').textContent()).toBe('Dashboard');
    const paidToday = Number(await staff.page.locator('table.dash-table').first().locator('tr[data-method="card"] td[data-outcome="paid"]').textContent());
    expect(paidToday).toBeGreaterThanOrEqual(1);
    const chart = await staff.page.locator('svg.chart-svg').first().boundingBox();
    expect(chart).not.toBeNull();
    expect(chart!.width).toBeGreaterThan(300);
    expect(chart!.x + chart!.width).toBeLessThanOrEqual(390);
    expect(await staff.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await staff.screenshot('admin-dashboard-phone');
    expect([...shopper.problems, ...staff.problems]).toEqual([]);
    await Promise.all([shopper.close(), staff.close()]);
  });
});
