/** For event-seq-race.test.ts: every store path that writes an event, mixed, on one order. */
import type { OrderStore } from '../../../server/orders/store.js';
import type { Order } from '../../../server/orders/types.js';

/** Runs `ops` mixed operations on `id` from `store`; returns the seqs it was told it wrote. */
export async function hammer(store: OrderStore, id: string, tag: string, ops: number): Promise<number[]> {
  const seqs: number[] = [];
  let copy: Order | null = await store.get(id);
  for (let i = 0; i < ops; i++) {
    const kind = i % 8;
    if (kind === 0 || kind === 1) {
      const r = await store.appendEvent(id, { type: 'note', source: 'api', ...(kind === 1 ? { dedupeKey: `${tag}-k${i}` } : {}) });
      if (r.appended) seqs.push(r.event.seq);
      continue;
    }
    if (kind === 2) {
      // A key both racers use: exactly one of them stores it.
      const r = await store.appendEvent(id, { type: 'note', source: 'notify', dedupeKey: `shared-${i}` });
      if (r.appended) seqs.push(r.event.seq);
      continue;
    }
    for (let attempt = 0; attempt < 1000; attempt++) {
      if (copy === null) copy = await store.get(id);
      const c: Order = copy!;
      const ev = { type: 'details', source: 'api' as const, fromState: c.state, dedupeKey: `${tag}-t${i}` };
      let r;
      if (kind === 3) r = await store.transition(id, c.version, { data: { [`${tag}${i}`]: 1 } }, ev, undefined, c);
      else if (kind === 4) r = await store.transition(id, c.version, { data: { [`${tag}${i}`]: 1 } }, ev);
      else if (kind === 5) r = await store.transition(id, c.version, { attention: i % 16 === 5 ? 'x' : null }, ev, { outbox: [{ hook: 'onPaid', payload: { i } }] }, attempt % 2 ? c : undefined);
      else if (kind === 6) r = await store.transition(id, c.version, {}, ev, { refunds: [{ referenceId: `${tag}-R${i}`, amount: 1, currency: 'EUR', status: 'succeeded', source: 'api' }] }, attempt % 2 ? c : undefined);
      else r = await store.transition(id, c.version, { data: { [`p${tag}${i}`]: 1 } }, undefined, attempt % 2 ? { outbox: [{ hook: 'onPaid', payload: {} }] } : undefined, attempt % 2 ? c : undefined);
      if (r.ok) {
        copy = r.order;
        if (r.event) seqs.push(r.event.seq);
        break;
      }
      copy = r.current;
    }
  }
  return seqs;
}

