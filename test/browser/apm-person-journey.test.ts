/**
 * A Brazilian shopper paying with Pix in a real browser against the demo store: the pay page asks
 * for the payer's document only for the methods that need it, refuses the payment without it
 * (nothing is sent to the gateway), and with a valid CPF the shopper reaches Pix and pays.
 */
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, newShopper, useJourneyEnv, type StoreUnderTest } from './harness.js';
import { addToCart, checkout, waitForHeading, waitForState } from './shopper.js';

describe.skipIf(!HAS_CHROMIUM)('APM journey with payer data (Chromium)', () => {
  const env = useJourneyEnv({ store: {} });
  let browser: Browser;
  let store: StoreUnderTest;
  beforeAll(() => {
    ({ browser, stores: { store } } = env);
  });

  it('pays with Pix after giving a CPF; without one the page asks for it and nothing is sent', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    await addToCart(page, store, 'WHISK-BAMBOO');
    const orderId = await checkout(page, store, { method: 'apm', country: 'BR' });

    // Ranked for a Brazilian shopper: the local methods first; the payer fields name them.
    const options = await page.locator('#payment_method option').allTextContents();
    expect(options.slice(0, 2)).toEqual(['Pix', 'Boleto Bancário']);
    const payer = page.getByRole('group', { name: 'Payer details' });
    expect(await payer.textContent()).toContain('Needed only for Pix, Boleto Bancário.');
    await page.selectOption('#payment_method', 'PIX');
    await page.getByRole('button', { name: /Continue to pay/ }).click();

    // Refused on the kit's side: the field is named, the order still waits for payment.
    await page.locator('#checkout-errors').waitFor();
    expect(await page.locator('#person_document_number-error').textContent()).toBe('Enter the document number');
    expect(await page.locator('#person_document_number').getAttribute('aria-invalid')).toBe('true');
    expect((await store.store.kit.store.get(orderId))?.state).toBe('created');
    expect(store.store.sandbox.ledger.transactions().some((t) => t.paymentMethod === 'PIX')).toBe(false);
    await shopper.screenshot('apm-person-missing');

    await page.selectOption('#payment_method', 'PIX');
    await page.selectOption('#person_document_type', 'CPF');
    await page.fill('#person_document_number', '123.456.789-09');
    await page.fill('#person_birth_date', '1990-12-31');
    await page.getByRole('button', { name: /Continue to pay/ }).click();

    await page.waitForURL(`${store.store.gateway.baseUrl}/issuer/apm/**`);
    expect(await page.locator('h1').textContent()).toBe('Pay with Pix');
    await page.getByRole('button', { name: 'Approve payment' }).click();
    await page.waitForURL(/\/checkout\/result\//);
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    const order = await waitForState(store, orderId, ['paid']);
    expect(order.method).toBe('apm');
    // The document the shopper typed went to the gateway only: the order does not keep it.
    expect(JSON.stringify(order.data)).not.toContain('12345678909');
    // The one 400 is the refused form above (the browser logs any 4xx page load).
    const unexpected = shopper.problems.filter((p) => !(p.kind === 'console' && p.text.includes('status of 400') && p.url.includes('/checkout/pay/')));
    expect(unexpected).toEqual([]);
    expect(shopper.problems).toHaveLength(1);
    await shopper.close();
  });
});
