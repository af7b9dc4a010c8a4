/** Saved-card rows of both SQL stores as the kit's `SavedCard`. */
import type { CardBrand, SavedCard } from '../../saved-cards.js';
import type { Row } from './rows.js';

const dateOf = (value: unknown): Date => (value instanceof Date ? new Date(value.getTime()) : new Date(Number(value)));

export function rowToSavedCard(row: Row): SavedCard {
  return {
    id: String(row.id),
    shopperId: String(row.shopper_id),
    tokenId: String(row.token_id),
    brand: String(row.brand) as CardBrand,
    last4: String(row.last4),
    expiryMonth: Number(row.expiry_month),
    expiryYear: Number(row.expiry_year),
    createdAt: dateOf(row.created_at),
  };
}
