/**
 * The one order and pay form the in-process step timers share (bench/pay-steps.ts,
 * bench/client-steps.ts): a kit over the memory store, an order made as the seeder makes them,
 * the request and form bodies the bench's browsers post.
 */
import type { Request } from 'express';
import { createCheckoutKit, type CheckoutKit } from '../server/kit.js';
import { createMemoryStore } from '../server/orders/stores/memory.js';
import type { Order } from '../server/orders/types.js';
import { kitOptions } from './fixture.js';
import { AMOUNT, BILLING, BROWSER_HEADERS, cardFields, CURRENCY, DEVICE_FIELDS, shopperData } from './seed.js';

export interface StepsFixture {
  kit: CheckoutKit;
  order: Order;
  /** Enough of an Express request for the device data: the address and the browser's headers. */
  req: Request;
  hostedBody: Record<string, string>;
  cardBody: Record<string, string>;
}

export async function stepsFixture(): Promise<StepsFixture> {
  const kit = createCheckoutKit({ ...kitOptions('http://127.0.0.1:1/checkout', 'http://127.0.0.1:2'), store: createMemoryStore() });
  const { order } = await kit.createPayment({
    orderNo: 'STEP-0000001', amount: AMOUNT, currency: CURRENCY, items: shopperData.items, shopper: shopperData.shopper, billing: BILLING,
  });
  const headers: Record<string, string> = BROWSER_HEADERS;
  const req = { ip: '::ffff:127.0.0.1', get: (name: string) => headers[name.toLowerCase()], headers } as unknown as Request;
  const hostedBody = { method: 'hosted', _csrf: 'x', ...DEVICE_FIELDS };
  const cardBody = { ...hostedBody, method: 'card', ...cardFields(String(new Date().getFullYear() + 3)) };
  return { kit, order, req, hostedBody, cardBody };
}

/**
 * Runs each step `calls` times per round (after 200 unmeasured calls), every step in turn round
 * after round so they share the machine's load, and prints each step's median CPU µs per call.
 */
export async function timeSteps(
  steps: Record<string, () => unknown>,
  asyncSteps: Record<string, () => Promise<unknown>>,
  rounds: number,
  calls: number,
  digits = 1,
): Promise<void> {
  const results = new Map<string, number[]>([...Object.keys(steps), ...Object.keys(asyncSteps)].map((k) => [k, []]));
  const record = (name: string, start: NodeJS.CpuUsage): void => {
    const used = process.cpuUsage(start);
    results.get(name)?.push((used.user + used.system) / calls);
  };
  for (let r = 0; r < rounds; r++) {
    for (const [name, step] of Object.entries(steps)) {
      for (let i = 0; i < 200; i++) step();
      const start = process.cpuUsage();
      for (let i = 0; i < calls; i++) step();
      record(name, start);
    }
    for (const [name, step] of Object.entries(asyncSteps)) {
      for (let i = 0; i < 200; i++) await step();
      const start = process.cpuUsage();
      for (let i = 0; i < calls; i++) await step();
      record(name, start);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  for (const [name, xs] of results) console.log(`${name.padEnd(22)} ${median(xs).toFixed(digits).padStart(7)} µs/call  (min ${Math.min(...xs).toFixed(digits)})`);
}
