/**
 * Needs: `npm install acquiring-checkout-kit` in an ESM app (`"type": "module"`).
 *
 * Copy this: staff actions from code instead of the admin UI — capture all or part of an authorised payment,
 * refund all or part of a payment, and ask the gateway what it knows about an order. Each one
 * sends one request, records who did it on the order, moves the order through the reconcile
 * engine (so hooks run once) and never re-sends a request whose answer was lost.
 *
 * Runnable against the demo store's data while `npm start` runs:
 *
 *   npx tsx examples/routes/admin-actions.ts query KL-20250101-ABC123
 *   npx tsx examples/routes/admin-actions.ts refund KL-20250101-ABC123 5.00
 *   npx tsx examples/routes/admin-actions.ts capture KL-20250101-ABC123 [20.00]   (SANDBOX_CAPTURE_MODE=manual)
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import {
  createCheckoutKit,
  createSqliteStore,
  GatewayError,
  KitError,
  parseWireAmount,
  type CheckoutKit,
  type Order,
  type QueryOrder,
} from 'acquiring-checkout-kit';

type ActionKit = Pick<CheckoutKit, 'client' | 'engine' | 'store' | 'orders'>;

async function findOrder(kit: ActionKit, orderNo: string): Promise<Order> {
  const order = await kit.store.getByOrderNo(orderNo);
  if (order === null) throw new KitError('ERR_ORDER_NOT_FOUND', `No order ${orderNo}`);
  if (order.transactionId === null) throw new KitError('ERR_ORDER_STATE', `Order ${orderNo} has no gateway transaction yet`);
  return order;
}

/** A lost answer is rethrown as it is (`outcomeUnknown`): query before trying again, never re-send. */
function refused(what: string, result: { ok: boolean; message: string | null; error: KitError | null } | undefined): never {
  if (result?.error) throw result.error;
  throw new GatewayError('ERR_GATEWAY_STATUS', `${what} refused by the gateway: ${result?.message ?? 'no answer for this order'}`);
}

/**
 * Captures an authorised payment, all of it or `amount` minor units (the gateway releases the
 * rest); the order becomes `paid`. `kit.orders.capture` writes the amount on the order before
 * sending, so the gateway's own report of the capture (which repeats the authorised amount)
 * records the amount captured whichever arrives first.
 */
export async function captureOrder(kit: ActionKit, orderNo: string, actor = 'api', amount?: number): Promise<Order> {
  const order = await findOrder(kit, orderNo);
  const result = await kit.orders.capture(order.id, { actor, ...(amount === undefined ? {} : { amount }) });
  if (result.status !== 'captured') refused('Capture', { ok: false, message: result.message, error: result.error });
  return result.order;
}

/** Refunds `amount` minor units (default: everything left); `partially_refunded` or `refunded`. */
export async function refundOrder(kit: ActionKit, orderNo: string, amount?: number, reason?: string, actor = 'api'): Promise<Order> {
  const order = await findOrder(kit, orderNo);
  const captured = order.capturedAmount > 0 ? order.capturedAmount : order.amount;
  const left = captured - order.refundedAmount;
  const refund = amount ?? left;
  if (!['paid', 'partially_refunded'].includes(order.state) || refund <= 0 || refund > left) {
    throw new KitError('ERR_ORDER_STATE', `Order ${orderNo} (${order.state}) cannot be refunded ${String(refund)}; ${String(left)} left`);
  }
  const [result] = await kit.client.batch.refund([{
    transaction_id: order.transactionId ?? '', order_no: order.orderNo, currency: order.currency, amount: order.amount,
    refund_amount: refund, ...(reason ? { refund_reason: reason } : {}),
  }]);
  if (!result?.ok) refused('Refund', result);
  const reference = result.element?.refund_reference_id ?? null;
  await kit.engine.record(order.id, { type: 'api_action', source: 'api', actor, data: { action: 'refund', refundAmount: refund, refundReferenceId: reference } });
  // The order takes the refunded total the gateway reports (query and refund search), not a sum
  // kept here: the gateway's own notification of this refund may be applied before or after,
  // and the total stays right either way.
  try {
    return (await kit.engine.confirm(order.id, 'api', actor)).order ?? order;
  } catch {
    // The refund was made; the gateway's notification or the next query settles the order.
    return (await kit.store.get(order.id)) ?? order;
  }
}

/** What the gateway says about the order, then the stored order brought in line with it. */
export async function queryOrder(kit: ActionKit, orderNo: string, actor = 'api'): Promise<{ gateway: QueryOrder | undefined; order: Order | null }> {
  const answer = await kit.client.queries.transactions({ orders: [orderNo] });
  const stored = await kit.store.getByOrderNo(orderNo);
  const synced = stored === null ? null : (await kit.engine.confirm(stored.id, 'api', actor)).order;
  return { gateway: answer.orders.find((o) => o.orderNo === orderNo), order: synced };
}

// The command line, against the demo store's SQLite file and the sandbox's default account.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [action, orderNo, amountText] = process.argv.slice(2);
  if (action === undefined || orderNo === undefined || !['capture', 'refund', 'query'].includes(action)) {
    console.error('usage: admin-actions.ts capture|refund|query <orderNo> [capture or refund amount, e.g. 5.00]');
    process.exit(2);
  }
  const store = createSqliteStore({ path: process.env.CHECKOUT_DATABASE ?? 'data/checkout.sqlite' });
  const kit = createCheckoutKit({
    gateway: {
      baseUrl: process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:4000',
      merchantId: process.env.GATEWAY_MERCHANT_ID ?? '701001',
      accountId: process.env.GATEWAY_ACCOUNT_ID ?? '701001010',
      signKey: process.env.GATEWAY_SIGN_KEY ?? 'sandbox-sign-key-not-secret',
    },
    // Only the client, the engine and the store are used here: no pages, no links.
    publicUrl: 'http://localhost:3000/checkout',
    tokenSecret: randomBytes(32).toString('base64url'),
    store,
    sweeper: { enabled: false },
  });
  try {
    const existing = await store.getByOrderNo(orderNo);
    const amount = amountText === undefined || existing === null ? undefined : parseWireAmount(amountText, existing.currency, 'amount');
    const result = action === 'capture'
      ? await captureOrder(kit, orderNo, 'cli', amount)
      : action === 'refund'
        ? await refundOrder(kit, orderNo, amount, 'refund from the command line', 'cli')
        : await queryOrder(kit, orderNo, 'cli');
    console.log(JSON.stringify(result, null, 2));
  } catch (err) {
    console.error(err instanceof KitError ? `${err.code}: ${err.message}` : err);
    process.exitCode = 1;
  } finally {
    await kit.close();
    await store.close();
  }
}
