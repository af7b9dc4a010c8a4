/**
 * Saved cards: a stored-card token from the gateway (`token_id`) with what a shopper needs to
 * recognise the card (brand, last four digits, expiry), keyed by the shop's shopper id. The card
 * number and security code are never part of it. The token is card data's substitute: it is
 * shown to no one but the shopper it belongs to and never logged in full.
 */
import { ValidationError } from '../errors.js';

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'diners', 'maestro', 'unionpay', 'card'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

export interface NewSavedCard {
  /** The shop's shopper id (`shopper.id` of the order), at most 64 characters. */
  shopperId: string;
  /** The gateway's `token_id`, at most 50 characters. */
  tokenId: string;
  brand: CardBrand;
  /** Exactly four digits. */
  last4: string;
  /** 1–12. */
  expiryMonth: number;
  /** Four digits. */
  expiryYear: number;
}

export interface SavedCard extends NewSavedCard {
  /** The kit's id of the saved card (what pages and the admin name; never the token). */
  id: string;
  createdAt: Date;
}

/**
 * The saved-card contract, implemented by the kit's order stores (`store.savedCards`). A store
 * without it simply offers no saved cards. Rules:
 * - `save` of a token the shopper already saved returns the stored card unchanged (no duplicate);
 * - every read and removal is scoped to one shopper: another shopper's card is "not found";
 * - invalid input rejects with ERR_VALIDATION before anything is written.
 */
export interface SavedCardStore {
  /** Stores a card for the shopper, or returns the one already stored for this token. */
  save(card: NewSavedCard): Promise<SavedCard>;
  /** The shopper's cards, newest first (ties by id). Empty for an unknown shopper. */
  list(shopperId: string): Promise<SavedCard[]>;
  /** One of the shopper's cards; null when it is not theirs or does not exist. */
  get(shopperId: string, id: string): Promise<SavedCard | null>;
  /** Removes one of the shopper's cards; false when it is not theirs or does not exist. */
  remove(shopperId: string, id: string): Promise<boolean>;
}

const SHOPPER_ID_MAX = 64;
const TOKEN_MAX = 50;

/** Refuses input that breaks the model, naming the field; returns the card unchanged otherwise. */
export function checkNewSavedCard(card: NewSavedCard): NewSavedCard {
  const issues: { field: string; message: string }[] = [];
  const text = (field: keyof NewSavedCard, value: unknown, max: number): void => {
    if (typeof value !== 'string' || value.length === 0 || value.length > max) issues.push({ field, message: `must be 1 to ${String(max)} characters` });
  };
  text('shopperId', card.shopperId, SHOPPER_ID_MAX);
  text('tokenId', card.tokenId, TOKEN_MAX);
  if (!(CARD_BRANDS as readonly string[]).includes(card.brand)) issues.push({ field: 'brand', message: `must be one of ${CARD_BRANDS.join(', ')}` });
  if (typeof card.last4 !== 'string' || !/^\d{4}$/.test(card.last4)) issues.push({ field: 'last4', message: 'must be exactly four digits' });
  if (!Number.isInteger(card.expiryMonth) || card.expiryMonth < 1 || card.expiryMonth > 12) issues.push({ field: 'expiryMonth', message: 'must be 1 to 12' });
  if (!Number.isInteger(card.expiryYear) || card.expiryYear < 2000 || card.expiryYear > 2099) issues.push({ field: 'expiryYear', message: 'must be a four-digit year' });
  if (issues.length > 0) throw new ValidationError(issues);
  return card;
}

/** Shopper-id check for reads: an empty or over-long id can own nothing. */
export function isShopperId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= SHOPPER_ID_MAX;
}

/** The brand of a card number by its leading digits (IIN ranges); `card` when none matches. */
export function cardBrand(digits: string): CardBrand {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  const six = Number(digits.slice(0, 6));
  if (digits.startsWith('4')) return 'visa';
  if ((two >= 51 && two <= 55) || (six >= 222100 && six <= 272099)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (four >= 3528 && four <= 3589) return 'jcb';
  if (two === 36 || two === 38 || (four >= 3000 && four <= 3059)) return 'diners';
  if (four === 6011 || two === 65 || (six >= 644000 && six <= 649999)) return 'discover';
  if (two === 62) return 'unionpay';
  if (two === 50 || (two >= 56 && two <= 69)) return 'maestro';
  return 'card';
}

/** True when the card's expiry month has passed at `now` (a card is valid to the end of its month). */
export function savedCardExpired(card: Pick<SavedCard, 'expiryMonth' | 'expiryYear'>, now: Date): boolean {
  return card.expiryYear * 12 + card.expiryMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

/** Newest first, ties by id: the order every store lists in. */
export function sortSavedCards(cards: SavedCard[]): SavedCard[] {
  return cards.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** A saved card as the kit's API returns it: everything but the token. */
export type SavedCardSummary = Omit<SavedCard, 'tokenId'>;

/** `kit.savedCards`: the shop's code lists and removes a shopper's saved cards. */
export interface SavedCardsApi {
  /** The shopper's saved cards, newest first, without their tokens. Empty when the store keeps none. */
  list(shopperId: string): Promise<SavedCardSummary[]>;
  /** Removes one of the shopper's cards; false when it is not theirs, unknown, or the store keeps none. */
  remove(shopperId: string, savedCardId: string): Promise<boolean>;
}

function checkIds(shopperId: unknown, savedCardId?: unknown): void {
  const issues: { field: string; message: string }[] = [];
  if (!isShopperId(shopperId)) issues.push({ field: 'shopperId', message: 'must be 1 to 64 characters' });
  if (savedCardId !== undefined && (typeof savedCardId !== 'string' || savedCardId === '' || savedCardId.length > 64)) {
    issues.push({ field: 'savedCardId', message: 'must be 1 to 64 characters' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

export function createSavedCardsApi(store: SavedCardStore | undefined): SavedCardsApi {
  return {
    async list(shopperId) {
      checkIds(shopperId);
      if (store === undefined) return [];
      return (await store.list(shopperId)).map(({ tokenId: _token, ...card }) => card);
    },
    async remove(shopperId, savedCardId) {
      checkIds(shopperId, savedCardId);
      return store === undefined ? false : store.remove(shopperId, savedCardId);
    },
  };
}
