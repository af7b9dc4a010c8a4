/**
 * The SQLite store's saved cards. A save is one write through the store's group commit; the
 * unique (shopper_id, token_id) index makes a repeated save return the row already stored.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { uuidV7 } from '../../uuid-v7.js';
import { checkNewSavedCard, isShopperId, type NewSavedCard, type SavedCard, type SavedCardStore } from '../saved-cards.js';
import { guarded } from './sql/errors.js';
import { rowToSavedCard } from './sql/saved-card-rows.js';
import type { Row } from './sql/rows.js';
import type { GroupCommit } from './sqlite-group-commit.js';

const C = 'checkout_saved_cards';
const ADAPTER = 'SQLite';

export function createSqliteSavedCards(db: BetterSqlite3.Database, commits: Pick<GroupCommit, 'write'>): SavedCardStore {
  const insert = db.prepare(`INSERT INTO ${C} (id, shopper_id, token_id, brand, last4, expiry_month, expiry_year, created_at)
    VALUES (@id, @shopperId, @tokenId, @brand, @last4, @expiryMonth, @expiryYear, @createdAt) ON CONFLICT (shopper_id, token_id) DO NOTHING`);
  const byToken = db.prepare<[string, string], Row>(`SELECT * FROM ${C} WHERE shopper_id = ? AND token_id = ?`);
  const byShopper = db.prepare<[string], Row>(`SELECT * FROM ${C} WHERE shopper_id = ? ORDER BY created_at DESC, id DESC`);
  const one = db.prepare<[string, string], Row>(`SELECT * FROM ${C} WHERE shopper_id = ? AND id = ?`);
  const remove = db.prepare<[string, string]>(`DELETE FROM ${C} WHERE shopper_id = ? AND id = ?`);
  return {
    save: (input: NewSavedCard) =>
      guarded(ADAPTER, 'savedCards.save', () => {
        const card = checkNewSavedCard(input);
        const now = Date.now();
        return commits.write((): SavedCard => {
          insert.run({ id: uuidV7(now), ...card, createdAt: now });
          return rowToSavedCard(byToken.get(card.shopperId, card.tokenId) as Row);
        });
      }),
    list: (shopperId: string) => guarded(ADAPTER, 'savedCards.list', () => (isShopperId(shopperId) ? byShopper.all(shopperId).map(rowToSavedCard) : [])),
    get: (shopperId: string, id: string) =>
      guarded(ADAPTER, 'savedCards.get', () => {
        const row = one.get(shopperId, id);
        return row === undefined ? null : rowToSavedCard(row);
      }),
    remove: (shopperId: string, id: string) => guarded(ADAPTER, 'savedCards.remove', () => commits.write(() => remove.run(shopperId, id).changes > 0)),
  };
}
