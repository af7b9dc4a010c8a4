/**
 * The sweeper's refund round: settles refunds staff started whose answer was lost (a transport
 * error left the outcome unknown). Their pending ledger rows are looked up in the gateway's
 * refund search: the engine matches each reported refund by reference, else by amount among the
 * pending rows without one, and records any refund the ledger misses. A pending row the search
 * still does not show once `failAfterMs` has passed is failed, which frees what it held.
 */
import { redact } from '../logging.js';
import type { Logger } from '../logging.js';
import type { GatewayPort, ReconcileEngine, RefundReport } from './engine-types.js';
import type { OrderStore } from './store.js';
import type { Order } from './types.js';

export interface RefundSweepOptions {
  engine: ReconcileEngine;
  store: OrderStore;
  gateway: GatewayPort;
  /** Rows younger than this are left alone: their answer may still be on its way. */
  settleAfterMs: number;
  /** A row older than this that the refund search does not show becomes failed. */
  failAfterMs: number;
  /** Pending rows looked at per run. */
  limit: number;
  logger: Logger;
  now: () => Date;
}

export interface RefundSweepReport {
  /** Orders whose pending refunds were looked up. */
  orders: number;
  /** Pending rows the refund search settled (matched to a gateway refund). */
  settled: number;
  /** Pending rows failed: not in the refund search after `failAfterMs`. */
  failed: number;
  /** Orders that could not be settled (search failure, engine refusal). */
  errors: number;
}

export async function sweepPendingRefunds(options: RefundSweepOptions): Promise<RefundSweepReport | null> {
  const { engine, store, gateway, logger } = options;
  const at = options.now().getTime();
  const pending = await store.listPendingRefunds({ createdBefore: new Date(at - options.settleAfterMs), limit: options.limit });
  if (pending.length === 0) return null;
  const report: RefundSweepReport = { orders: 0, settled: 0, failed: 0, errors: 0 };
  if (gateway.searchRefunds === undefined) {
    logger.warn({ pending: pending.length }, 'Pending refunds cannot be settled: the gateway port has no searchRefunds');
    report.errors = pending.length;
    return report;
  }
  const orders = (await Promise.all([...new Set(pending.map((r) => r.orderId))].map((id) => store.get(id)))).filter((o): o is Order => o !== null);
  report.orders = orders.length;
  let found: Map<string, RefundReport[]>;
  try {
    found = await gateway.searchRefunds(orders.map((o) => o.orderNo));
  } catch (error) {
    // Nothing is failed on a search that did not answer: "none" and "unknown" differ.
    logger.warn({ err: redact(error), orders: orders.length }, 'Refund search failed; pending refunds left for the next run');
    report.errors += orders.length;
    return report;
  }
  for (const order of orders) {
    try {
      const before = pending.filter((r) => r.orderId === order.id);
      const fact = { orderId: order.id, source: 'sweeper' as const, actor: 'sweeper', outcome: 'unknown' as const };
      // The search is the gateway's complete list: on an order refunded before the ledger existed
      // it includes refunds the ledger's carried-over total already counts (engine-refunds, listedOf).
      const listed = await engine.apply({ ...fact, listedRefunds: found.get(order.orderNo) ?? [], data: { reason: 'refund search for pending refunds' } });
      if (listed.status === 'rejected' || listed.status === 'busy' || listed.status === 'not_found') {
        report.errors++;
        continue;
      }
      const rows = await store.listRefunds(order.id);
      const still = rows.filter((r) => r.status === 'pending' && before.some((b) => b.id === r.id));
      report.settled += before.length - still.length;
      const expired = still.filter((r) => r.createdAt.getTime() < at - options.failAfterMs);
      if (expired.length === 0) continue;
      const failed = await engine.apply({
        ...fact,
        refunds: expired.map((r) => ({ id: r.id, amount: r.amount, status: 'failed' as const })),
        data: { reason: 'the refund search does not show these pending refunds' },
      });
      if (failed.status === 'rejected' || failed.status === 'busy' || failed.status === 'not_found') report.errors++;
      else report.failed += expired.length;
    } catch (error) {
      report.errors++;
      logger.error({ err: redact(error), orderId: order.id }, 'Sweeper failed to settle pending refunds');
    }
  }
  return report;
}
