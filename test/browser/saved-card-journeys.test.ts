/**
 * A returning shopper's saved card in the demo store, in a real browser: saved on the first
 * order, paid with one click on the next (its token, no card details typed), then removed.
 * Each step checks the page, the stored cards and orders, the sandbox's ledger, and that no page
 * logged an error or broke the CSP.
 */
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './a11y.js';
import { HAS_CHROMIUM, newShopper, useJourneyEnv, type StoreUnderTest } from './harness.js';
import { addToCart, APPROVE_CARD, checkout, fillCard, waitForHeading, waitForState } from './shopper.js';

describe.skipIf(!HAS_CHROMIUM)('saved-card journeys in the demo store (Chromium)', () => {
  const env = useJourneyEnv({ store: {} });
  let browser: Browser;
  let store: StoreUnderTest;
  beforeAll(() => {
    ({ browser, stores: { store } } = env);
  });

  it('saves the card, pays the next order with one click, then removes the card', async () => {
    const shopper = await newShopper(browser);
    const { page } = shopper;
    const kit = store.store.kit;

    // 1. First order: type the card and tick "save this card".
    await addToCart(page, store, 'MUG-STONE');
    const firstId = await checkout(page, store, { method: 'card' });
    expect(await page.locator('#pay-saved').count()).toBe(0);
    await fillCard(page, APPROVE_CARD);
    await page.getByLabel('Save this card for my next purchase').check();
    await page.getByRole('button', { name: /^Pay / }).click();
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    const first = await waitForState(store, firstId, ['paid']);
    const shopperId = (first.data.shopper as { id: string }).id;
    const saved = await kit.store.savedCards!.list(shopperId);
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ brand: 'visa', last4: '4242' });
    await shopper.screenshot('saved-card-saved');

    // 2. Next order: one click on "Pay … with Visa •••• 4242", no card fields typed.
    await addToCart(page, store, 'TEA-SENCHA');
    const secondId = await checkout(page, store, { method: 'card' });
    const oneClick = page.getByRole('button', { name: /with Visa •••• 4242/ });
    expect(await oneClick.count()).toBe(1);
    expect(await page.locator('#pay-saved').textContent()).not.toContain(saved[0]!.tokenId);
    await shopper.screenshot('saved-card-offered');
    // The saved-card list, its remove buttons and the "save this card" checkbox meet WCAG 2.2 AA.
    expect(await axeViolations(page)).toEqual([]);
    await oneClick.click();
    expect(await waitForHeading(page, 'paid')).toBe('Thank you, your order is paid');
    const second = await waitForState(store, secondId, ['paid']);
    expect(second.maskedCard).toBe('424242******4242');
    const tx = store.store.sandbox.ledger.transactions().find((t) => t.orderNo === second.orderNo);
    expect(tx?.tokenId).toBe(saved[0]!.tokenId);

    // 3. Third visit: remove the card from the pay page.
    await addToCart(page, store, 'MUG-STONE');
    const thirdId = await checkout(page, store, { method: 'card' });
    await page.getByRole('button', { name: 'Remove Visa •••• 4242' }).click();
    await page.getByText('The saved card was removed.').waitFor();
    expect(await page.getByRole('button', { name: /with Visa •••• 4242/ }).count()).toBe(0);
    expect(await kit.store.savedCards!.list(shopperId)).toEqual([]);
    expect((await kit.store.get(thirdId))?.state).toBe('created');
    await shopper.screenshot('saved-card-removed');
    expect(await axeViolations(page)).toEqual([]);

    expect(shopper.problems).toEqual([]);
    await shopper.close();
  }, 180_000); // three orders through the demo store, each with its pay, result and order pages

  it('another shopper in another browser is offered no saved card', async () => {
    const shopper = await newShopper(browser);
    await addToCart(shopper.page, store, 'MUG-STONE');
    await checkout(shopper.page, store, { method: 'card' });
    expect(await shopper.page.locator('#pay-saved').count()).toBe(0);
    expect(await shopper.page.getByLabel('Save this card for my next purchase').count()).toBe(1);
    expect(shopper.problems).toEqual([]);
    await shopper.close();
  }, 60_000);
});
