/**
 * Saved cards over real HTTP with the sandbox: a signed-in shopper saves a card, pays the next
 * order with one click (its token, no card data), removes it; guests and other shoppers never
 * see or use it; a token the gateway no longer knows is a decline. The kit's API lists and
 * removes cards from code. Checked on the stored cards, the orders, the sandbox's ledger and logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_FIELD } from '../../../server/http/csrf.js';
import { ValidationError } from '../../../server/errors.js';
import {
  Browser, CARD, cardFields, parseForms, payForm, paymentInput, startHarness, uniqueOrderNo, type Form, type Harness, type Page,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

let shopperN = 0;
const newShopper = (): string => `acct-${String(++shopperN)}-${Math.random().toString(36).slice(2, 8)}`;

async function openPayPage(orderNo: string, shopperId: string, account = true, browser = new Browser()): Promise<{ browser: Browser; page: Page }> {
  const input = paymentInput(orderNo);
  const { payUrl } = await h.kit.createPayment({ ...input, shopper: { ...input.shopper, id: shopperId, ...(account ? { account: true } : {}) } });
  const page = await browser.get(payUrl);
  expect(page.status).toBe(200);
  return { browser, page };
}

/** The card form as a browser sends it with "save this card" left unticked. */
function unticked(page: Page): Form {
  const form = payForm(page, 'card');
  const { save_card: _ticked, ...fields } = form.fields;
  return { ...form, fields };
}

const savedForms = (page: Page): Form[] => parseForms(page).filter((f) => f.fields.method === 'saved_card');
const removeForms = (page: Page): Form[] => parseForms(page).filter((f) => f.action.includes('/saved-cards/'));

/** Pays one order with "save this card" ticked and returns the stored card. */
async function saveCard(shopperId: string, card: string = CARD.approve) {
  const orderNo = uniqueOrderNo('SC-SAVE');
  const { browser, page } = await openPayPage(orderNo, shopperId);
  const result = await browser.submit(page, payForm(page, 'card'), { ...cardFields(card), save_card: 'yes' });
  return { orderNo, result, cards: await h.kit.store.savedCards!.list(shopperId) };
}

describe('saving a card', () => {
  it('a signed-in shopper is offered "save this card"; ticked, the token is stored with brand, last four and expiry only', async () => {
    const shopperId = newShopper();
    const { page } = await openPayPage(uniqueOrderNo('SC-OFFER'), shopperId);
    expect(page.html).toContain('Save this card for my next purchase');
    expect(payForm(page, 'card').html).toContain('name="save_card"');

    const { orderNo, result, cards } = await saveCard(shopperId);
    expect(result.html).toMatch(/Payment received/);
    expect((await h.orderOf(orderNo)).state).toBe('paid');
    expect(cards).toHaveLength(1);
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo);
    expect(tx?.tokenId).toMatch(/^TK/);
    expect(cards[0]).toMatchObject({ shopperId, tokenId: tx?.tokenId, brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: new Date().getFullYear() + 3 });
    expect(JSON.stringify(cards[0])).not.toContain(CARD.approve);
    // Logged by its last four characters only.
    const logs = h.logs.join('\n');
    expect(logs).toContain('Card saved for the shopper');
    expect(logs).not.toContain(tx?.tokenId ?? 'never');
  });

  it('unticked, or declined, nothing is saved and no token is asked for', async () => {
    const shopperId = newShopper();
    const orderNo = uniqueOrderNo('SC-NOSAVE');
    const { browser, page } = await openPayPage(orderNo, shopperId);
    await browser.submit(page, unticked(page), cardFields(CARD.approve));
    expect(h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo)?.tokenId).toBe('');
    const declined = await saveCard(shopperId, CARD.decline);
    expect((await h.orderOf(declined.orderNo)).state).toBe('declined');
    expect(declined.cards).toEqual([]);
  });

  it('a guest (no shop account) sees no checkbox, and a forged save_card saves nothing', async () => {
    const shopperId = newShopper();
    const orderNo = uniqueOrderNo('SC-GUEST');
    const { browser, page } = await openPayPage(orderNo, shopperId, false);
    expect(page.html).not.toContain('name="save_card"');
    await browser.submit(page, payForm(page, 'card'), { ...cardFields(CARD.approve), save_card: 'yes' });
    expect((await h.orderOf(orderNo)).state).toBe('paid');
    expect(h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo)?.tokenId).toBe('');
    expect(await h.kit.store.savedCards!.list(shopperId)).toEqual([]);
  });
});

describe('paying with a saved card', () => {
  it('the next order offers "Pay with Visa •••• 4242" and pays with the token, no card data sent', async () => {
    const shopperId = newShopper();
    const { cards } = await saveCard(shopperId);
    const orderNo = uniqueOrderNo('SC-ONECLICK');
    const { browser, page } = await openPayPage(orderNo, shopperId);
    expect(page.html).toContain('Visa •••• 4242');
    expect(page.html).not.toContain(cards[0]!.tokenId);
    const [form] = savedForms(page);
    expect(form?.fields.saved_card).toBe(cards[0]!.id);
    expect(form?.fields).not.toHaveProperty('security_code');

    const result = await browser.submit(page, form!);
    expect(result.html).toMatch(/Payment received/);
    const order = await h.orderOf(orderNo);
    expect(order).toMatchObject({ state: 'paid', method: 'card' });
    expect(order.maskedCard).toMatch(/^424242\*+4242$/);
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo);
    expect(tx?.tokenId).toBe(cards[0]!.tokenId);
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });

  it('another shopper sees none of them, and naming someone else\'s card charges nothing (400)', async () => {
    const owner = newShopper();
    const { cards } = await saveCard(owner);
    const orderNo = uniqueOrderNo('SC-OTHER');
    const { browser, page } = await openPayPage(orderNo, newShopper());
    expect(savedForms(page)).toEqual([]);
    expect(page.html).not.toContain('•••• 4242');
    const card = payForm(page, 'card');
    const refused = await browser.send(card, { ...card.fields, method: 'saved_card', saved_card: cards[0]!.id }, card.action, new URL(page.url).origin);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Choose one of your saved cards, or pay with a card');
    expect((await h.orderOf(orderNo)).state).toBe('created');
    expect(h.sandbox.ledger.transactions().filter((t) => t.orderNo === orderNo)).toEqual([]);
  });

  it('a guest order of the same shopper id is offered no saved card', async () => {
    const shopperId = newShopper();
    await saveCard(shopperId);
    const { page } = await openPayPage(uniqueOrderNo('SC-GUEST2'), shopperId, false);
    expect(savedForms(page)).toEqual([]);
  });

  it('a token the gateway removed is declined (0014) and the shopper sees the decline', async () => {
    const shopperId = newShopper();
    const { cards } = await saveCard(shopperId);
    const removed = await fetch(`${h.gateway.baseUrl}/_sandbox/tokens/${encodeURIComponent(cards[0]!.tokenId)}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    const orderNo = uniqueOrderNo('SC-GONE');
    const { browser, page } = await openPayPage(orderNo, shopperId);
    const result = await browser.submit(page, savedForms(page)[0]!);
    expect(result.html).toMatch(/Payment declined/);
    expect((await h.orderOf(orderNo)).state).toBe('declined');
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
  });
});

describe('removing a saved card', () => {
  it('the shopper removes it from the pay page: gone from the store and the page says so', async () => {
    const shopperId = newShopper();
    await saveCard(shopperId);
    const { browser, page } = await openPayPage(uniqueOrderNo('SC-RM'), shopperId);
    const after = await browser.submit(page, removeForms(page)[0]!);
    expect(after.status).toBe(200);
    expect(after.html).toContain('The saved card was removed.');
    expect(savedForms(after)).toEqual([]);
    expect(await h.kit.store.savedCards!.list(shopperId)).toEqual([]);
  });

  it('without the CSRF field nothing is removed (403)', async () => {
    const shopperId = newShopper();
    await saveCard(shopperId);
    const { browser, page } = await openPayPage(uniqueOrderNo('SC-RM-CSRF'), shopperId);
    const form = removeForms(page)[0]!;
    const refused = await browser.send(form, {}, form.action, new URL(page.url).origin);
    expect(refused.status).toBe(403);
    expect(await h.kit.store.savedCards!.list(shopperId)).toHaveLength(1);
  });

  it('another shopper\'s pay page cannot remove it, even naming its id with a valid CSRF field', async () => {
    const owner = newShopper();
    const { cards } = await saveCard(owner);
    const { browser, page } = await openPayPage(uniqueOrderNo('SC-RM-OTHER'), newShopper());
    const card = payForm(page, 'card');
    const target = `${page.url}/saved-cards/${cards[0]!.id}/remove`;
    const answer = await browser.send(card, { [CSRF_FIELD]: card.fields[CSRF_FIELD]! }, target, new URL(page.url).origin);
    expect(answer.status).toBe(200);
    expect(answer.html).not.toContain('The saved card was removed.');
    expect(await h.kit.store.savedCards!.list(owner)).toHaveLength(1);
  });
});

describe('kit.savedCards', () => {
  it('lists a shopper\'s cards without their tokens and removes one once', async () => {
    const shopperId = newShopper();
    const { cards } = await saveCard(shopperId);
    const listed = await h.kit.savedCards.list(shopperId);
    expect(listed).toEqual([{ id: cards[0]!.id, shopperId, brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: cards[0]!.expiryYear, createdAt: cards[0]!.createdAt }]);
    expect(JSON.stringify(listed)).not.toContain(cards[0]!.tokenId);
    expect(await h.kit.savedCards.remove(`other-${shopperId}`, cards[0]!.id)).toBe(false);
    expect(await h.kit.savedCards.remove(shopperId, cards[0]!.id)).toBe(true);
    expect(await h.kit.savedCards.remove(shopperId, cards[0]!.id)).toBe(false);
    expect(await h.kit.savedCards.list(shopperId)).toEqual([]);
  });

  it('refuses a missing shopper id or card id with ERR_VALIDATION naming it', async () => {
    await expect(h.kit.savedCards.list('')).rejects.toBeInstanceOf(ValidationError);
    await expect(h.kit.savedCards.remove('s', '')).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'savedCardId' });
  });
});
