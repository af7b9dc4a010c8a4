/**
 * The journeys the two-instance test runs, and the storm that settles them. Orders are created
 * and paid through A. Then, at the same time: shoppers come back through B, the gateway's
 * notification is sent twice to A (control API) and its recorded body posted to B, and both
 * instances' sweepers run. Who wins each order is left to the race; the test checks the result.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { SweepReport } from '../../../server/orders/sweeper.js';
import type { OrderEvent, OrderState } from '../../../server/orders/types.js';
import type { SandboxNotification } from '../../../server/sandbox/index.js';
import { CARD, cardFields, onlyForm, payForm, paymentInput, type Form, type Page } from '../checkout/journeys-harness.js';
import { uniqueOrderNo, type Instance, type Instances } from './instances.js';
import { Shopper } from './shopper.js';

export type Group = 'challenge-pass' | 'challenge-fail' | 'double-submit' | 'timeout-swept' | 'timeout-notified';

/** Who starts first in the storm: the sweepers, or the returns and notification copies. */
export type StormMode = 'sweepers first' | 'notifications first';

export interface Journey {
  group: Group;
  orderNo: string;
  card: string;
  /** The transitions the order must go through, as [from, to]. */
  path: [OrderState, OrderState][];
  shopper: Shopper;
  /** The sandbox's auto-submitting form back to the shop (it points at A). */
  returnForm?: Form;
  /** Pages the shopper ended on. */
  pages: Page[];
}

const finalOf = (card: string): OrderState => (card === CARD.decline ? 'declined' : 'paid');

/** Every journey starts with its submission, created → pending, before anything is sent. */
const PATHS: Record<Group, (card: string) => [OrderState, OrderState][]> = {
  'challenge-pass': () => [['created', 'pending'], ['pending', 'requires_action'], ['requires_action', 'paid']],
  'challenge-fail': () => [['created', 'pending'], ['pending', 'requires_action'], ['requires_action', 'declined']],
  'double-submit': () => [['created', 'pending'], ['pending', 'paid']],
  'timeout-swept': (card) => [['created', 'pending'], ['pending', finalOf(card)]],
  'timeout-notified': (card) => [['created', 'pending'], ['pending', finalOf(card)]],
};

const CARDS: Record<Group, string[]> = {
  'challenge-pass': [CARD.challenge, CARD.challenge, CARD.challenge],
  'challenge-fail': [CARD.challenge, CARD.challenge],
  'double-submit': [CARD.approve, CARD.approve, CARD.approve],
  'timeout-swept': [CARD.approve, CARD.approve, CARD.decline],
  'timeout-notified': [CARD.approve, CARD.decline, CARD.approve],
};

/** The state each journey is in once the shopper is done with A, before the storm. */
export const OPENED: Record<Group, OrderState> = {
  'challenge-pass': 'requires_action',
  'challenge-fail': 'requires_action',
  'double-submit': 'paid',
  'timeout-swept': 'pending',
  'timeout-notified': 'pending',
};

export interface Scenario {
  journeys: Journey[];
  /** Reports of the sweeper runs, in pairs started together. */
  sweepPairs: [SweepReport, SweepReport][];
  /** HTTP statuses B gave the replayed notification bodies. */
  replayStatuses: number[];
  pay(): Promise<void>;
  storm(mode: StormMode): Promise<void>;
  /** One run of each instance's sweeper at the same moment; `first` is called first. */
  sweepBoth(first?: 'A' | 'B'): Promise<void>;
}

export function deliveriesOf(h: Instances, orderNo: string): SandboxNotification[] {
  return h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo);
}

export async function eventsOf(h: Instances, orderNo: string): Promise<OrderEvent[]> {
  const order = await h.b.store.getByOrderNo(orderNo);
  if (order === null) throw new Error(`no order ${orderNo}`);
  return h.a.store.listEvents(order.id);
}

export function createScenario(h: Instances, label: string): Scenario {
  const siteOf = (url: URL): string => (url.origin === h.gateway.baseUrl ? 'gateway' : 'shop');
  const journeys: Journey[] = [];
  for (const [group, cards] of Object.entries(CARDS) as [Group, string[]][]) {
    for (const card of cards) {
      journeys.push({ group, card, orderNo: uniqueOrderNo(`${label}-${group}`), path: PATHS[group](card), shopper: new Shopper(siteOf), pages: [] });
    }
  }
  const sweepPairs: [SweepReport, SweepReport][] = [];
  const replayStatuses: number[] = [];

  async function control(path: string): Promise<void> {
    const res = await fetch(`${h.gateway.baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }

  /** The recorded notification body, posted to another instance as the gateway would. */
  async function replayTo(instance: Instance, fields: Record<string, string>): Promise<void> {
    const res = await fetch(`${instance.url}/checkout/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    await res.arrayBuffer();
    replayStatuses.push(res.status);
  }

  /** Everything the shopper does through A, up to the gateway's answer. */
  async function payOne(journey: Journey): Promise<void> {
    const { orderNo, group, card, shopper } = journey;
    const { payUrl } = await h.a.kit.createPayment(paymentInput(orderNo));
    expect(new URL(payUrl).origin).toBe(h.a.url);
    const form = payForm(await shopper.get(payUrl), 'card');
    const fill = cardFields(card);
    if (group === 'challenge-pass' || group === 'challenge-fail') {
      // The decision's notification is held back and replayed in the storm, racing the return.
      h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
      const toIssuer = await shopper.submit(form, { fill });
      const challenge = await shopper.submit(onlyForm(toIssuer));
      const decision = group === 'challenge-pass' ? 'pass' : 'fail';
      const back = await shopper.submit(onlyForm(challenge), { button: { name: 'decision', value: decision } });
      journey.returnForm = onlyForm(back);
    } else if (group === 'double-submit') {
      // One click lands on A, the impatient second one on B: same form, same cookie.
      journey.pages.push(...(await Promise.all([shopper.submit(form, { fill }), shopper.submit(form, { fill, via: h.b.url })])));
    } else {
      // The authorise is processed but its answer never arrives: the order is left pending.
      h.sandbox.faults.add({ kind: 'timeout', operation: 'authorise', orderNo, times: 1 });
      h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
      journey.pages.push(await shopper.submit(form, { fill }));
    }
  }

  async function sweepBoth(first: 'A' | 'B' = 'A'): Promise<void> {
    const [x, y] = first === 'A' ? [h.a, h.b] : [h.b, h.a];
    sweepPairs.push(await Promise.all([x.kit.sweeper.runOnce(), y.kit.sweeper.runOnce()]));
  }

  async function storm(mode: StormMode): Promise<void> {
    let answered = (): void => undefined;
    const firstAnswer = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const tasks: Promise<unknown>[] = [];
    const sweepers = async (): Promise<void> => {
      if (mode === 'notifications first') await Promise.race([firstAnswer, sleep(2000)]);
      for (let round = 0; round < 3; round++) await sweepBoth(round % 2 === 0 ? 'B' : 'A');
    };
    if (mode === 'sweepers first') tasks.push(sweepers());
    for (const journey of journeys) {
      if (journey.group !== 'timeout-swept') {
        const first = deliveriesOf(h, journey.orderNo)[0];
        if (first === undefined) throw new Error(`no notification for ${journey.orderNo}`);
        tasks.push(control(`/notifications/${first.id}/twice`), replayTo(h.b, first.fields).finally(answered));
      }
      if (journey.returnForm !== undefined) {
        expect(new URL(journey.returnForm.action).origin).toBe(h.a.url);
        tasks.push(journey.shopper.submit(journey.returnForm, { via: h.b.url }).then((page) => journey.pages.push(page)).finally(answered));
      }
    }
    if (mode === 'notifications first') tasks.push(sweepers());
    await Promise.all(tasks);
  }

  return {
    journeys,
    sweepPairs,
    replayStatuses,
    pay: async () => {
      await Promise.all(journeys.map(payOne));
    },
    storm,
    sweepBoth,
  };
}
