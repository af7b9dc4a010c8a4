/**
 * Paging through `store.list` newest first by creation time, round after round: each page starts
 * before the last one's oldest order, so a page costs its own rows however deep the walk is (an
 * offset would read every earlier page again). Used by the sweeper's rounds that walk all the
 * orders of some states (capture claims, revisits).
 */
import type { OrderStore } from './store.js';
import type { Order, OrderState } from './types.js';

/** Where a walk is; `before` null starts from the newest order. Kept by the caller between rounds. */
export interface CreationCursor {
  /** The next page holds orders created before this (ms, exclusive); null starts a new walk. */
  before: number | null;
  /** Ids already read at the last page's oldest millisecond, which the next page reads again. */
  boundary: string[];
}

export const newCreationCursor = (): CreationCursor => ({ before: null, boundary: [] });

/**
 * The next page of at most `limit` orders in `states` created from `createdFrom`, without the ones
 * the previous page already returned; moves `cursor` past it, back to the start after the last
 * page. One row more than the page is read to tell whether the page ends inside a millisecond: then
 * the next page starts at the end of that millisecond and skips the ones already read. Only more
 * than `limit` orders created in one millisecond (a bulk import) leave the rest of it to the next walk.
 */
export async function nextPageByCreation(
  store: OrderStore, query: { states: readonly OrderState[]; createdFrom?: Date; limit: number }, cursor: CreationCursor,
): Promise<Order[]> {
  const read = await store.list({
    states: query.states, ...(query.createdFrom === undefined ? {} : { createdFrom: query.createdFrom }),
    ...(cursor.before === null ? {} : { createdTo: new Date(cursor.before) }), limit: query.limit + 1,
  });
  const page = read.slice(0, query.limit);
  const fresh = page.filter((order) => !cursor.boundary.includes(order.id));
  const next = read[query.limit];
  const oldest = page.at(-1)?.createdAt.getTime();
  if (next === undefined || oldest === undefined) {
    cursor.before = null;
    cursor.boundary = [];
    return fresh;
  }
  const split = next.createdAt.getTime() === oldest;
  const stuck = split && cursor.before !== null && oldest + 1 >= cursor.before;
  cursor.before = split && !stuck ? oldest + 1 : oldest;
  cursor.boundary = split && !stuck ? page.filter((order) => order.createdAt.getTime() === oldest).map((order) => order.id) : [];
  return fresh;
}
