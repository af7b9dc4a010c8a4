/**
 * The PostgreSQL store's saved cards. The unique (shopper_id, token_id) index makes a repeated
 * save, even from two instances at once, return the row already stored.
 */
import { uuidV7 } from '../../uuid-v7.js';
import { checkNewSavedCard, isShopperId, type NewSavedCard, type SavedCardStore } from '../saved-cards.js';
import type { PgPoolLike } from './postgres-client.js';
import { quoteSchema } from './postgres-queries.js';
import { guarded } from './sql/errors.js';
import { rowToSavedCard } from './sql/saved-card-rows.js';

const ADAPTER = 'PostgreSQL';

export function createPostgresSavedCards(pool: PgPoolLike, schema: string): SavedCardStore {
  const C = `${quoteSchema(schema)}.checkout_saved_cards`;
  const insert = `INSERT INTO ${C} (id, shopper_id, token_id, brand, last4, expiry_month, expiry_year, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8::timestamptz) ON CONFLICT (shopper_id, token_id) DO NOTHING`;
  const byToken = `SELECT * FROM ${C} WHERE shopper_id = $1 AND token_id = $2`;
  const byShopper = `SELECT * FROM ${C} WHERE shopper_id = $1 ORDER BY created_at DESC, id DESC`;
  const one = `SELECT * FROM ${C} WHERE shopper_id = $1 AND id = $2`;
  const remove = `DELETE FROM ${C} WHERE shopper_id = $1 AND id = $2 RETURNING id`;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return {
    save: (input: NewSavedCard) =>
      guarded(ADAPTER, 'savedCards.save', async () => {
        const c = checkNewSavedCard(input);
        const now = new Date();
        await pool.query(insert, [uuidV7(now.getTime()), c.shopperId, c.tokenId, c.brand, c.last4, c.expiryMonth, c.expiryYear, now.toISOString()]);
        const { rows } = await pool.query(byToken, [c.shopperId, c.tokenId]);
        return rowToSavedCard(rows[0] as Record<string, unknown>);
      }),
    list: (shopperId: string) =>
      guarded(ADAPTER, 'savedCards.list', async () => (isShopperId(shopperId) ? (await pool.query(byShopper, [shopperId])).rows.map(rowToSavedCard) : [])),
    get: (shopperId: string, id: string) =>
      guarded(ADAPTER, 'savedCards.get', async () => {
        if (!uuid.test(id)) return null;
        const row = (await pool.query(one, [shopperId, id])).rows[0];
        return row === undefined ? null : rowToSavedCard(row);
      }),
    remove: (shopperId: string, id: string) =>
      guarded(ADAPTER, 'savedCards.remove', async () => (await pool.query(remove, [shopperId, id])).rows.length > 0),
  };
}
