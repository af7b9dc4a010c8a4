/**
 * Shoppers paying by card in the demo store, in a real browser: approved at once, and through
 * the 3-D Secure challenge passed and failed. Each journey checks the page, the stored order and
 * its events, and that no page logged an error or broke the CSP.
 */
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, newShopper, useJourneyEnv, type StoreUnderTest } from './harness.js';
import { addToCart, APPROVE_CARD, buyWithCard, CHALLENGE_CARD, checkout, payByCard, staffView, waitForHeading, waitForState } from './shopper.js';

describe.skipIf(!HAS_CHROMIUM)('card journeys in the demo store (Chromium)', () => {
  const env = useJourneyEnv({ store: {} });
  let browser: Browser;
  let store: StoreUnderTest;
  beforeAll(() => {
    ({ browser, stores: { store } } = env);
  });

  it('buys with the approving card: paid at once, listed in the shopper\'s orders, nothing stored but the masked card', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    await page.goto(store.url);
    expect(await page.locator('.product-card').count()).toBe(6);
    await page.getByRole('button', { name: 'Add Cast-iron teapot to the cart' }).click();
    await page.waitForURL(`${store.url}/cart`);
    await addToCart(page, store, 'TEA-SENCHA', 2);
    expect(await page.locator('.site-nav .badge').textContent()).toBe('3');
    const orderId = await checkout(page, store, { method: 'card' });

    // The pay page embeds the kit's form and lists the test cards.
    expect(await page.locator('.test-cards').textContent()).toContain('4242 4242 4242 4242');
    expect(await page.locator('.kit-form').textContent()).toContain('€76.80');
    await payByCard(page, APPROVE_CARD);
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    expect(await page.locator('.facts').textContent()).toContain('424242******4242');
    await shopper.screenshot('card-approved');

    const order = await waitForState(store, orderId, ['paid']);
    expect(order).toMatchObject({ amount: 7680, currency: 'EUR', method: 'card', maskedCard: '424242******4242', capturedAmount: 7680 });
    expect(order.transactionId).not.toBeNull();
    const stored = JSON.stringify({ order, events: await store.store.kit.store.listEvents(orderId) });
    expect(stored).not.toContain(APPROVE_CARD);
    const staff = await staffView(browser, store, orderId);
    expect(staff.facts).toContain('paid');
    expect(staff.facts).toContain('424242******4242');
    expect(staff.facts).toContain('76.80 EUR');
    expect(staff.problems).toEqual([]);

    await page.goto(`${store.url}/orders`);
    expect(await page.locator('table.orders').textContent()).toContain(order.orderNo);
    await page.goto(`${store.url}/cart`);
    expect(await page.locator('main').textContent()).toContain('Your cart is empty');
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  });

  it('passes the 3-D Secure challenge on the bank page and comes back to a paid order', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    await addToCart(page, store, 'MUG-STONE');
    const orderId = await checkout(page, store, { method: 'card' });
    await payByCard(page, CHALLENGE_CARD);

    await page.waitForURL(`${store.store.gateway.baseUrl}/issuer/3ds/**`);
    expect(await page.locator('h1').textContent()).toBe('3-D Secure verification');
    expect(await page.locator('main').textContent()).toContain('400000******3220');
    expect((await store.store.kit.store.get(orderId))?.state).toBe('requires_action');
    await shopper.screenshot('card-3ds-challenge');
    await page.getByRole('button', { name: 'Pass authentication' }).click();

    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    await shopper.screenshot('card-3ds-passed');
    const order = await waitForState(store, orderId, ['paid']);
    expect(order.maskedCard).toBe('400000******3220');
    const events = await store.store.kit.store.listEvents(orderId);
    expect(events.map((e) => e.toState)).toContain('requires_action');
    expect(events.some((e) => e.source === 'return')).toBe(true);
    expect((await staffView(browser, store, orderId)).facts).toContain('400000******3220');
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  });

  it('fails the 3-D Secure challenge: declined with the bank\'s reason, no money taken', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    await addToCart(page, store, 'GLASS-SET');
    const orderId = await checkout(page, store, { method: 'card' });
    await payByCard(page, CHALLENGE_CARD);
    await page.waitForURL(`${store.store.gateway.baseUrl}/issuer/3ds/**`);
    await page.getByRole('button', { name: 'Fail authentication' }).click();

    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'declined')).toBe('Your payment was declined');
    expect(await page.locator('.reason').textContent()).toContain('3-D Secure authentication failed');
    await shopper.screenshot('card-3ds-failed');
    const order = await waitForState(store, orderId, ['declined']);
    expect(order.capturedAmount).toBe(0);
    const staff = await staffView(browser, store, orderId);
    expect(staff.facts).toContain('declined');
    expect(staff.problems).toEqual([]);

    // Trying again puts the same items back in the cart for a new order, and keeps the e-mail
    // and address the shopper already typed.
    await page.getByRole('button', { name: 'Try again with another card or method' }).click();
    await page.waitForURL(`${store.url}/cart/checkout?from=${orderId}`);
    expect(await page.locator('.summary-card').textContent()).toContain('1 × Double-wall glasses, set of 2');
    expect(await page.inputValue('#email')).toBe('ada@example.com');
    expect(await page.inputValue('#address')).toBe('Keizersgracht 1');
    expect(await page.inputValue('#city')).toBe('Amsterdam');
    expect(await page.inputValue('#postal_code')).toBe('1015 CJ');
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  });

  it('on a phone (390 px): a declined payment\'s "Try again" keeps e-mail and address, and the shop stays around the pay form', async () => {
    const shopper = await newShopper(browser, { width: 390, height: 844 });
    const { page } = shopper;
    await addToCart(page, store, 'TEA-SENCHA');
    const orderId = await checkout(page, store, { method: 'card' });
    expect(await page.locator('header.site-header').isVisible()).toBe(true);
    await payByCard(page, CHALLENGE_CARD);
    await page.waitForURL(`${store.store.gateway.baseUrl}/issuer/3ds/**`);
    await page.getByRole('button', { name: 'Fail authentication' }).click();
    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'declined')).toBe('Your payment was declined');
    const again = page.getByRole('button', { name: 'Try again with another card or method' });
    await again.scrollIntoViewIfNeeded();
    const box = await again.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    await again.click();
    await page.waitForURL(`${store.url}/cart/checkout?from=${orderId}`);
    expect(await page.inputValue('#email')).toBe('ada@example.com');
    expect(await page.inputValue('#address')).toBe('Keizersgracht 1');
    expect(await page.inputValue('#postal_code')).toBe('1015 CJ');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  }, 120_000);

  it('a second shopper cannot open the first shopper\'s order page', async () => {
    const first = await newShopper(browser);
    const orderId = await buyWithCard(first.page, store, 'TOWEL-LINEN');
    await waitForState(store, orderId, ['paid']);
    const second = await newShopper(browser);
    const response = await second.page.goto(`${store.url}/orders/${orderId}`);
    expect(response?.status()).toBe(404);
    expect(first.problems).toEqual([]);
    await Promise.all([first.close(), second.close()]);
  });
});
