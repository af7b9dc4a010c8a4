import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../server/logging.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { GatewayOrderFact, GatewayPort } from '../../../server/orders/engine-types.js';
import type { OrderHooks } from '../../../server/orders/hooks.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import type { NewOrder, Order } from '../../../server/orders/types.js';

export const T0 = Date.parse('2030-01-01T00:00:00Z');

export function testClock(start = T0) {
  let t = start;
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

/** `inner` (a memory store by default), counting reads of single orders and of event lists. */
export function countingStore(inner: OrderStore = createMemoryStore()): { store: OrderStore; reads: { get: number; listEvents: number } } {
  const reads = { get: 0, listEvents: 0 };
  const store: OrderStore = {
    ...inner,
    get: (id) => {
      reads.get++;
      return inner.get(id);
    },
    listEvents: (id) => {
      reads.listEvents++;
      return inner.listEvents(id);
    },
  };
  return { store, reads };
}

export async function makeOrder(store: OrderStore, extra: Partial<NewOrder> = {}): Promise<Order> {
  return store.create({ id: randomUUID(), orderNo: `N-${randomUUID().slice(0, 18)}`, amount: 1000, currency: 'EUR', ...extra });
}

/** A GatewayPort backed by a map, recording every call. */
export function fakeGateway() {
  const known = new Map<string, GatewayOrderFact>();
  const calls: string[][] = [];
  let failWith: Error | null = null;
  let gate: Promise<void> | null = null;
  const port: GatewayPort = {
    async queryOrders(orderNos) {
      calls.push([...orderNos]);
      if (orderNos.length > 100) throw new Error('more than 100 orders in one query');
      await (gate ?? Promise.resolve());
      await new Promise((resolve) => setImmediate(resolve)); // let other callers interleave
      if (failWith) throw failWith;
      const out = new Map<string, GatewayOrderFact>();
      for (const no of orderNos) {
        const fact = known.get(no);
        if (fact) out.set(no, { ...fact });
      }
      return out;
    },
  };
  return {
    port,
    calls,
    /** The gateway now reports this for the order. */
    knows(order: Pick<Order, 'orderNo' | 'amount' | 'currency'>, fact: Partial<GatewayOrderFact> = {}) {
      known.set(order.orderNo, {
        orderNo: order.orderNo,
        transactionId: `T-${order.orderNo}`,
        outcome: 'approved',
        amount: order.amount,
        currency: order.currency,
        maskedCard: '424242******4242',
        ...fact,
      });
    },
    fail(error: Error | null) {
      failWith = error;
    },
    /** Holds every query until the returned function is called. */
    hold(): () => void {
      let open = (): void => undefined;
      gate = new Promise((resolve) => {
        open = () => {
          gate = null;
          resolve();
        };
      });
      return open;
    },
    queriedOrderNos: () => calls.flat(),
  };
}

export type HookName = keyof OrderHooks;

/** Hooks that record every call: `calls` in order, `count(name)`. */
export function recordingHooks(overrides: Partial<OrderHooks> = {}) {
  const calls: { hook: HookName; orderId: string; info: unknown }[] = [];
  const rec =
    (hook: HookName) =>
    (order: Order, info: unknown): void => {
      calls.push({ hook, orderId: order.id, info });
    };
  const names: HookName[] = [
    'onTransition', 'onPaid', 'onAuthorized', 'onFailed', 'onCancelled', 'onExpired', 'onRefunded',
    'onChargeback', 'onInReview', 'onRequiresAction', 'onAttention',
  ];
  const hooks = Object.fromEntries(names.map((n) => [n, rec(n)])) as OrderHooks;
  return {
    hooks: { ...hooks, ...overrides },
    calls,
    count: (hook: HookName, orderId?: string) => calls.filter((c) => c.hook === hook && (orderId === undefined || c.orderId === orderId)).length,
  };
}

/** A logger that keeps every line as JSON text. */
export function memoryLogger() {
  const lines: string[] = [];
  const write = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    lines.push(JSON.stringify({ level, msg, ...obj }));
  };
  const logger: Logger = { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
  return { logger, lines };
}

/** A card number the engine must never store or log. */
export const PAN = '4242424242424242';

/** An engine on a memory store (or the one given), with a fake gateway, recording hooks and a memory logger. */
export function engineSetup(options: { hooks?: ReturnType<typeof recordingHooks>; store?: OrderStore } = {}) {
  const store = options.store ?? createMemoryStore();
  const gateway = fakeGateway();
  const rec = options.hooks ?? recordingHooks();
  const log = memoryLogger();
  const engine = createReconcileEngine({ store, gateway: gateway.port, hooks: rec.hooks, logger: log.logger, leaseWaitMs: 200 });
  return { store, gateway, rec, engine, log };
}
