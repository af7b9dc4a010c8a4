/** The memory store's saved cards: the reference implementation of `SavedCardStore`. */
import { uuidV7 } from '../../uuid-v7.js';
import { checkNewSavedCard, isShopperId, sortSavedCards, type NewSavedCard, type SavedCard, type SavedCardStore } from '../saved-cards.js';

const copy = (card: SavedCard): SavedCard => ({ ...card, createdAt: new Date(card.createdAt.getTime()) });

export function createMemorySavedCards(now: () => Date): SavedCardStore {
  const cards = new Map<string, SavedCard>();
  const ofShopper = (shopperId: string): SavedCard[] => [...cards.values()].filter((c) => c.shopperId === shopperId);
  return {
    async save(input: NewSavedCard): Promise<SavedCard> {
      await Promise.resolve();
      const card = checkNewSavedCard(input);
      const existing = ofShopper(card.shopperId).find((c) => c.tokenId === card.tokenId);
      if (existing !== undefined) return copy(existing);
      const at = now();
      const stored: SavedCard = {
        id: uuidV7(at.getTime()), shopperId: card.shopperId, tokenId: card.tokenId, brand: card.brand,
        last4: card.last4, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, createdAt: at,
      };
      cards.set(stored.id, stored);
      return copy(stored);
    },
    list(shopperId: string): Promise<SavedCard[]> {
      return Promise.resolve(isShopperId(shopperId) ? sortSavedCards(ofShopper(shopperId).map(copy)) : []);
    },
    get(shopperId: string, id: string): Promise<SavedCard | null> {
      const card = cards.get(id);
      return Promise.resolve(card !== undefined && card.shopperId === shopperId ? copy(card) : null);
    },
    remove(shopperId: string, id: string): Promise<boolean> {
      const card = cards.get(id);
      if (card === undefined || card.shopperId !== shopperId) return Promise.resolve(false);
      cards.delete(id);
      return Promise.resolve(true);
    },
  };
}
