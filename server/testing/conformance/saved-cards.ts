/**
 * Saved cards (`store.savedCards`, optional): one row per shopper and token, every read and
 * removal scoped to one shopper, invalid input refused before anything is written. A store
 * without saved cards skips these cases (it simply offers none).
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { isKitError } from '../../errors.js';
import type { NewSavedCard, SavedCardStore } from '../../orders/saved-cards.js';
import type { ConformanceContext } from './context.js';
import { sleep } from './context.js';

let n = 0;
const card = (overrides: Partial<NewSavedCard> = {}): NewSavedCard => {
  n += 1;
  return { shopperId: `shopper-${String(n)}`, tokenId: `TK-conformance-${String(n)}`, brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: 2031, ...overrides };
};

export function savedCardCases(ctx: ConformanceContext): void {
  const cards = (t: TestContext): SavedCardStore => {
    const store = ctx.store.savedCards;
    if (store === undefined) t.skip();
    return store;
  };

  describe('saved cards', () => {
    it('saves a card and returns it with an id and creation time, without any card number', async (t) => {
      const input = card();
      const saved = await cards(t).save(input);
      expect(saved).toMatchObject(input);
      expect(typeof saved.id).toBe('string');
      expect(saved.id).not.toBe(input.tokenId);
      expect(saved.createdAt).toBeInstanceOf(Date);
      expect(await cards(t).get(input.shopperId, saved.id)).toEqual(saved);
      expect(await cards(t).list(input.shopperId)).toEqual([saved]);
    });

    it('saving the same token for the same shopper again returns the stored card, no duplicate', async (t) => {
      const input = card();
      const first = await cards(t).save(input);
      const again = await cards(t).save({ ...input, last4: '1111' });
      expect(again).toEqual(first);
      expect(await cards(t).list(input.shopperId)).toHaveLength(1);
    });

    it('concurrent saves of one token store one card', async (t) => {
      const input = card();
      const results = await Promise.all(Array.from({ length: 5 }, () => cards(t).save(input)));
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(await cards(t).list(input.shopperId)).toHaveLength(1);
    });

    it('lists a shopper\'s cards newest first and nobody else\'s', async (t) => {
      const shopperId = `shopper-list-${String(++n)}`;
      const older = await cards(t).save(card({ shopperId }));
      await sleep(3);
      const newer = await cards(t).save(card({ shopperId, brand: 'mastercard', last4: '4444' }));
      await cards(t).save(card());
      expect((await cards(t).list(shopperId)).map((c) => c.id)).toEqual([newer.id, older.id]);
      expect(await cards(t).list('nobody')).toEqual([]);
      expect(await cards(t).list('')).toEqual([]);
    });

    it('never gives or removes one shopper\'s card for another shopper', async (t) => {
      const mine = await cards(t).save(card());
      const other = `other-${mine.shopperId}`;
      expect(await cards(t).get(other, mine.id)).toBeNull();
      expect(await cards(t).remove(other, mine.id)).toBe(false);
      expect(await cards(t).get(mine.shopperId, mine.id)).toEqual(mine);
    });

    it('removes a card once; a second removal and an unknown id find nothing', async (t) => {
      const saved = await cards(t).save(card());
      expect(await cards(t).remove(saved.shopperId, saved.id)).toBe(true);
      expect(await cards(t).remove(saved.shopperId, saved.id)).toBe(false);
      expect(await cards(t).get(saved.shopperId, saved.id)).toBeNull();
      expect(await cards(t).list(saved.shopperId)).toEqual([]);
      expect(await cards(t).get(saved.shopperId, '00000000-0000-7000-8000-000000000000')).toBeNull();
      expect(await cards(t).get(saved.shopperId, 'not-an-id')).toBeNull();
    });

    it('the same token saved by two shoppers is two cards', async (t) => {
      const a = await cards(t).save(card({ tokenId: 'TK-shared' }));
      const b = await cards(t).save(card({ tokenId: 'TK-shared' }));
      expect(a.id).not.toBe(b.id);
      expect(await cards(t).list(a.shopperId)).toEqual([a]);
    });

    it('refuses a card that breaks the model with ERR_VALIDATION naming the field, storing nothing', async (t) => {
      const bad: [keyof NewSavedCard, unknown][] = [
        ['last4', '424242424242'], ['last4', 'abcd'], ['expiryMonth', 13], ['expiryYear', 31], ['tokenId', ''], ['tokenId', 'T'.repeat(51)],
        ['shopperId', ''], ['brand', 'visa electron'],
      ];
      for (const [field, value] of bad) {
        const input = { ...card(), [field]: value };
        const error: unknown = await cards(t).save(input).then(() => null, (e: unknown) => e);
        expect(isKitError(error) && error.code === 'ERR_VALIDATION', `${field}=${String(value)}`).toBe(true);
        expect(JSON.stringify((error as { details?: unknown }).details)).toContain(field);
        if (typeof input.shopperId === 'string' && input.shopperId !== '') expect(await cards(t).list(input.shopperId)).toEqual([]);
      }
    });
  });
}
