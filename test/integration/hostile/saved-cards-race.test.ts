/**
 * Hostile: saved cards under races and forgery. Attacked here:
 * - a shopper removes the saved card (pay page and kit.savedCards) while one-click payments with
 *   it are posted at once on several of their orders, each posted twice;
 * - another shopper's pay page posts the first shopper's card id and remove form, with a valid
 *   CSRF field of its own, in parallel;
 * - afterwards the token is looked for in full in every log line, order event, order's data, hook
 *   call, the admin's order and saved-card pages and the pay pages.
 * Invariant: each order charged at most once and recorded as the ledger says; nobody but the
 * owner pays with or removes the card; the token never appears in full outside the card store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_FIELD } from '../../../server/http/csrf.js';
import { Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { Browser, CARD, cardFields, parseForms, payForm, paymentInput, type Form, type Page } from '../checkout/journeys-harness.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({ admin: true, notifyTimeScale: 0.00001 });
});
afterAll(async () => {
  await shop.close();
});

const uniq = (): string => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const savedForms = (page: Page): Form[] => parseForms(page).filter((f) => f.fields.method === 'saved_card');
const removeForms = (page: Page): Form[] => parseForms(page).filter((f) => f.action.includes('/saved-cards/'));

async function payPage(orderNo: string, shopperId: string): Promise<{ browser: Browser; page: Page; orderId: string }> {
  const input = paymentInput(orderNo);
  const { payUrl, order } = await shop.kit.createPayment({ ...input, shopper: { ...input.shopper, id: shopperId, account: true } });
  const browser = new Browser();
  const page = await browser.get(payUrl);
  expect(page.status).toBe(200);
  return { browser, page, orderId: order.id };
}

describe('saved cards raced and forged', () => {
  it('removal racing one-click payments, and another shopper forging the card id: one charge per order, no token anywhere', async () => {
    const owner = `acct-a-${uniq()}`;
    const other = `acct-b-${uniq()}`;
    const first = await payPage(`SCR-SAVE-${uniq()}`, owner);
    await first.browser.submit(first.page, payForm(first.page, 'card'), { ...cardFields(CARD.approve), save_card: 'yes' });
    const [card] = await shop.kit.store.savedCards!.list(owner);
    expect(card).toBeDefined();
    const token = card!.tokenId;
    const staff = new Staff(shop, 'scr');
    const cardsPage = (await staff.get(`/saved-cards?shopper=${encodeURIComponent(owner)}`)).text;
    expect(cardsPage).toContain('4242');

    const owners = await Promise.all([0, 1, 2, 3].map(() => payPage(`SCR-ONE-${uniq()}`, owner)));
    const thief = await payPage(`SCR-THIEF-${uniq()}`, other);
    const thiefCard = payForm(thief.page, 'card');
    const origin = new URL(thief.page.url).origin;
    const removeAction = removeForms(owners[0]!.page)[0]!.action.replace(/\/pay\/[^/]+\//, `/pay/${new URL(thief.page.url).pathname.split('/').at(-1) ?? ''}/`);

    await Promise.all([
      ...owners.flatMap(({ browser, page }) => {
        const [form] = savedForms(page);
        return [browser.submit(page, form!), browser.submit(page, form!)];
      }),
      owners[1]!.browser.submit(owners[1]!.page, removeForms(owners[1]!.page)[0]!),
      shop.kit.savedCards.remove(owner, card!.id),
      thief.browser.send(thiefCard, { ...thiefCard.fields, method: 'saved_card', saved_card: card!.id }, thiefCard.action, origin),
      thief.browser.send(thiefCard, { [CSRF_FIELD]: thiefCard.fields[CSRF_FIELD] ?? '' }, removeAction, origin).catch(() => null),
    ]);
    await shop.sandbox.notifier.flush();

    expect(shop.sandbox.ledger.transactions().filter((t) => t.orderNo.startsWith('SCR-THIEF'))).toEqual([]);
    expect((await shop.kit.store.get(thief.orderId))!.state).toBe('created');
    for (const { orderId } of owners) {
      const order = (await shop.kit.store.get(orderId))!;
      const charged = shop.sandbox.ledger.transactions().filter((t) => t.orderNo === order.orderNo);
      expect(charged.length).toBeLessThanOrEqual(1);
      if (charged.length === 1) {
        expect(order.state).toBe('paid');
        expect(shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === order.orderNo)).toHaveLength(1);
      } else {
        expect(order.state).not.toBe('paid');
      }
    }
    expect(await shop.kit.store.savedCards!.list(owner)).toEqual([]);

    // The token, in full, nowhere but the card store.
    const seen: string[] = [...shop.logs, JSON.stringify(shop.hookCalls)];
    for (const { orderId } of [first, ...owners, thief]) {
      const order = (await shop.kit.store.get(orderId))!;
      seen.push(JSON.stringify(order), JSON.stringify(await shop.kit.store.listEvents(orderId)));
      seen.push((await staff.get(`/orders/${orderId}`)).text);
    }
    seen.push(cardsPage);
    seen.push(...owners.map((o) => o.page.html), thief.page.html);
    expect(seen.filter((text) => text.includes(token))).toEqual([]);
  });
});
