import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { cardBrand, checkNewSavedCard, createSavedCardsApi, savedCardExpired, sortSavedCards, type SavedCard } from '../../../server/orders/saved-cards.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';

describe('cardBrand', () => {
  it.each([
    ['4242424242424242', 'visa'], ['5555555555554444', 'mastercard'], ['2223003122003222', 'mastercard'],
    ['378282246310005', 'amex'], ['3530111333300000', 'jcb'], ['30569309025904', 'diners'],
    ['6011111111111117', 'discover'], ['6200000000000005', 'unionpay'], ['6759649826438453', 'maestro'], ['9999999999999995', 'card'],
  ])('%s is %s', (digits, brand) => {
    expect(cardBrand(digits)).toBe(brand);
  });
});

describe('saved card values', () => {
  const good = { shopperId: 's-1', tokenId: 'TK1', brand: 'visa' as const, last4: '4242', expiryMonth: 1, expiryYear: 2030 };

  it('accepts a well-formed card and names every broken field', () => {
    expect(checkNewSavedCard(good)).toBe(good);
    try {
      checkNewSavedCard({ ...good, last4: '4242424242424242', expiryMonth: 0, shopperId: '' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.field)).toEqual(['shopperId', 'last4', 'expiryMonth']);
    }
  });

  it('a card is usable to the end of its expiry month', () => {
    expect(savedCardExpired({ expiryMonth: 3, expiryYear: 2030 }, new Date('2030-03-31T23:59:59Z'))).toBe(false);
    expect(savedCardExpired({ expiryMonth: 3, expiryYear: 2030 }, new Date('2030-04-01T00:00:00Z'))).toBe(true);
  });

  it('sorts newest first, ties by id descending', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const card = (id: string, createdAt: Date): SavedCard => ({ ...good, id, createdAt });
    expect(sortSavedCards([card('a', at), card('c', new Date(at.getTime() + 1)), card('b', at)]).map((c) => c.id)).toEqual(['c', 'b', 'a']);
  });
});

describe('createSavedCardsApi', () => {
  it('answers empty and false for a store without saved cards, and still checks its input', async () => {
    const api = createSavedCardsApi(undefined);
    expect(await api.list('s-1')).toEqual([]);
    expect(await api.remove('s-1', 'id')).toBe(false);
    await expect(api.list('x'.repeat(65))).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'shopperId' });
  });

  it('never returns the token', async () => {
    const store = createMemoryStore();
    await store.savedCards!.save({ shopperId: 's-1', tokenId: 'TK-secret-token-1', brand: 'visa', last4: '4242', expiryMonth: 1, expiryYear: 2030 });
    const listed = await createSavedCardsApi(store.savedCards).list('s-1');
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain('TK-secret');
  });
});
