/**
 * Shoppers paying with an alternative method (approved at the issuer, and abandoned there) and
 * on the gateway's hosted page, in a real browser against the demo store.
 */
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, newShopper, useJourneyEnv, type StoreUnderTest } from './harness.js';
import { addToCart, APPROVE_CARD, checkout, fillCard, staffView, waitForHeading, waitForState } from './shopper.js';

describe.skipIf(!HAS_CHROMIUM)('APM and hosted page journeys in the demo store (Chromium)', () => {
  const env = useJourneyEnv({ store: {} });
  let browser: Browser;
  let store: StoreUnderTest;
  beforeAll(() => {
    ({ browser, stores: { store } } = env);
  });

  it('pays with iDEAL: the issuer approves and the shopper comes back to a paid order', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    await addToCart(page, store, 'WHISK-BAMBOO');
    const orderId = await checkout(page, store, { method: 'apm', country: 'NL' });

    // Ranked by the gateway for a Dutch shopper: iDEAL first.
    const options = await page.locator('#payment_method option').allTextContents();
    expect(options[0]).toBe('iDEAL');
    await page.getByRole('button', { name: /Continue to pay/ }).click();

    await page.waitForURL(`${store.store.gateway.baseUrl}/issuer/apm/**`);
    expect(await page.locator('h1').textContent()).toBe('Pay with iDEAL');
    expect((await store.store.kit.store.get(orderId))?.state).toBe('requires_action');
    await page.getByRole('button', { name: 'Approve payment' }).click();

    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    expect(await page.locator('.facts').textContent()).toContain('Bank / local method');
    await shopper.screenshot('apm-approved');
    const order = await waitForState(store, orderId, ['paid']);
    expect(order).toMatchObject({ method: 'apm', amount: 1650, capturedAmount: 1650 });
    const staff = await staffView(browser, store, orderId);
    expect(staff.facts).toContain('paid');
    expect(staff.facts).toContain('apm');
    expect(staff.problems).toEqual([]);
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  });

  it('abandons at the APM issuer: the order is cancelled and the shopper is told no money was taken', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    await addToCart(page, store, 'TEA-SENCHA', 3);
    const orderId = await checkout(page, store, { method: 'apm', country: 'DE' });
    await page.selectOption('#payment_method', 'SOFORT');
    await page.getByRole('button', { name: /Continue to pay/ }).click();
    await page.waitForURL(`${store.store.gateway.baseUrl}/issuer/apm/**`);
    expect(await page.locator('h1').textContent()).toBe('Pay with Sofort');
    await page.getByRole('button', { name: 'Abandon' }).click();

    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'cancelled')).toBe('The payment was cancelled');
    expect(await page.locator('.status').textContent()).toContain('No money was taken');
    await shopper.screenshot('apm-abandoned');
    const order = await waitForState(store, orderId, ['cancelled']);
    expect(order.capturedAmount).toBe(0);
    expect((await staffView(browser, store, orderId)).facts).toContain('cancelled');
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  });

  it('pays on the hosted page: the card is typed on the gateway\'s page only', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    const shopRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(store.url)) shopRequests.push(request.postData() ?? '');
    });
    await addToCart(page, store, 'GLASS-SET');
    const orderId = await checkout(page, store, { method: 'hosted' });
    await page.getByRole('button', { name: 'Continue to secure payment' }).click();

    await page.waitForURL(`${store.store.gateway.baseUrl}/hosted/**`);
    expect(await page.locator('h1').textContent()).toBe('Card payment');
    await fillCard(page, APPROVE_CARD);
    await shopper.screenshot('hosted-card-page');
    await page.getByRole('button', { name: /^Pay / }).click();

    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    await shopper.screenshot('hosted-paid');
    const order = await waitForState(store, orderId, ['paid']);
    expect(order).toMatchObject({ method: 'hosted', amount: 2400, maskedCard: '424242******4242' });
    const staff = await staffView(browser, store, orderId);
    expect(staff.facts).toContain('hosted');
    expect(staff.facts).toContain('424242******4242');
    // The card number never reached the shop, not even in a request body.
    expect(shopRequests.join('\n')).not.toContain(APPROVE_CARD);
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  });
});
