/**
 * Staff and saved cards: look a shopper's cards up (by id or from an order), remove one with
 * CSRF; the token is never shown; the removal is recorded on the order it was made from.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedCard } from '../../../server/orders/saved-cards.js';
import { StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const TOKEN = 'TKADMINTESTTOKEN00001234';

async function seed(): Promise<{ shopperId: string; card: SavedCard; orderId: string; orderNo: string }> {
  const shopperId = `shopper-${randomUUID().slice(0, 8)}`;
  const card = await h.kit.store.savedCards!.save({ shopperId, tokenId: `${TOKEN}-${shopperId}`, brand: 'mastercard', last4: '4444', expiryMonth: 3, expiryYear: 2031 });
  const orderNo = h.orderNo('SC');
  const order = await h.kit.store.create({ id: randomUUID(), orderNo, amount: 1000, currency: 'EUR', state: 'paid', data: { shopper: { id: shopperId, email: 'a@example.test' } } });
  return { shopperId, card, orderId: order.id, orderNo };
}

describe('admin saved cards', () => {
  it('the order page links to the shopper\'s saved cards, which show brand, last four and expiry but no token', async () => {
    const { shopperId, card, orderId, orderNo } = await seed();
    const staff = new StaffSession(h.admin);
    const orderPage = await staff.get(`/orders/${orderId}`);
    expect(orderPage.text).toContain(`/saved-cards?shopper=${encodeURIComponent(shopperId)}&amp;order=${orderId}`);
    const list = await staff.get(`/saved-cards?shopper=${encodeURIComponent(shopperId)}&order=${orderId}`);
    expect(list.status).toBe(200);
    expect(list.text).toContain('Mastercard •••• 4444');
    expect(list.text).toContain('03/2031');
    expect(list.text).toContain(`← Order ${orderNo}`);
    expect(list.text).toContain(`value="${card.id}"`);
    expect(list.text).not.toContain(card.tokenId);
  });

  it('an empty search, an unknown shopper and an over-long id answer plainly', async () => {
    const staff = new StaffSession(h.admin);
    expect((await staff.get('/saved-cards')).text).toContain('Show saved cards');
    expect((await staff.get('/saved-cards?shopper=nobody-here')).text).toContain('This shopper has no saved cards.');
    expect((await staff.get(`/saved-cards?shopper=${'x'.repeat(65)}`)).status).toBe(400);
  });

  it('removes a card with CSRF, says so, and records the staff action on the order', async () => {
    const { shopperId, card, orderId } = await seed();
    const staff = new StaffSession(h.admin, 'bob');
    await staff.get(`/saved-cards?shopper=${encodeURIComponent(shopperId)}&order=${orderId}`);
    const removed = await staff.post('/saved-cards/remove', { shopper_id: shopperId, saved_card_id: card.id, order_id: orderId });
    expect(removed.status).toBe(303);
    const after = await staff.follow(removed);
    expect(after.text).toContain('Saved card Mastercard •••• 4444 removed.');
    expect(await h.kit.store.savedCards!.list(shopperId)).toEqual([]);
    const events = await h.kit.store.listEvents(orderId);
    const action = events.filter((e) => e.type === 'admin_action');
    expect(action).toHaveLength(1);
    expect(action[0]).toMatchObject({ actor: 'bob', source: 'admin', data: { action: 'saved_card_remove', savedCardId: card.id, last4: '4444' } });
    expect(JSON.stringify(action[0]?.data)).not.toContain(card.tokenId);
    expect((await staff.get(`/orders/${orderId}`)).text).toContain('Saved card •••• 4444 of the shopper removed by bob');
  });

  it('refuses a removal without a valid CSRF token, and one naming another shopper removes nothing', async () => {
    const { shopperId, card } = await seed();
    const staff = new StaffSession(h.admin);
    await staff.get('/saved-cards');
    const forged = await staff.post('/saved-cards/remove', { shopper_id: shopperId, saved_card_id: card.id, _csrf: 'forged' });
    expect(forged.status).toBe(403);
    const other = await staff.post('/saved-cards/remove', { shopper_id: `other-${shopperId}`, saved_card_id: card.id });
    expect(other.status).toBe(303);
    expect((await staff.follow(other)).text).toContain('nothing was removed');
    expect(await h.kit.store.savedCards!.list(shopperId)).toHaveLength(1);
    const bad = await staff.post('/saved-cards/remove', { shopper_id: '', saved_card_id: card.id });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('shopper_id');
  });
});
