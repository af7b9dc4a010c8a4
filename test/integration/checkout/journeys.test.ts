/**
 * Shopper journeys over real HTTP: the shop (kit mounted) and the sandbox gateway on port 0, a
 * small browser following the pages. Each journey checks the stored order, its events, the
 * hooks called and, where it matters, the sandbox's ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../../server/orders/types.js';
import {
  Browser, CARD, cardFields, onlyForm, parseForms, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness, type Page,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function eventsOf(orderNo: string): Promise<OrderEvent[]> {
  return h.kit.store.listEvents((await h.orderOf(orderNo)).id);
}

function ledgerFor(orderNo: string) {
  return h.sandbox.ledger.transactions().filter((t) => t.orderNo === orderNo);
}

/** Creates the payment and opens the pay page. */
async function openPayPage(orderNo: string, browser = new Browser()): Promise<{ browser: Browser; page: Page }> {
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  expect(page.status).toBe(200);
  return { browser, page };
}

function expectResultPage(page: Page, heading: RegExp): void {
  expect(page.status).toBe(200);
  expect(new URL(page.url).pathname).toMatch(/^\/checkout\/result\//);
  expect(page.html).toMatch(heading);
}

describe('card journeys', () => {
  it('approve: submitted (pending), then paid, one transition each, onPaid once, result page says paid', async () => {
    const orderNo = uniqueOrderNo('J-CARD-OK');
    const { browser, page } = await openPayPage(orderNo);
    const result = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expectResultPage(result, /Payment received/);
    await h.sandbox.notifier.flush();

    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    expect(order.method).toBe('card');
    expect(order.maskedCard).toMatch(/^424242\*+4242$/);
    expect(order.capturedAmount).toBe(2500);
    const events = await eventsOf(orderNo);
    // The submission moved it created → pending; the pay answer pending → paid.
    expect(events.filter((e) => e.type === 'transition').map((e) => [e.fromState, e.toState])).toEqual([['created', 'pending'], ['pending', 'paid']]);
    // The payment notification arrived after the pay answer: recorded as a late, ignored fact.
    expect(events.filter((e) => e.source === 'notify').length).toBeGreaterThanOrEqual(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    expect(h.hookCount('onTransition', orderNo)).toBe(2);
    expect(h.hookCount('onFailed', orderNo)).toBe(0);
    expect(ledgerFor(orderNo)).toHaveLength(1);
    expect(result.html).not.toContain('http-equiv="refresh"');
  });

  it('decline: declined with the reason on the result page, onFailed once', async () => {
    const orderNo = uniqueOrderNo('J-CARD-NO');
    const { browser, page } = await openPayPage(orderNo);
    const result = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.decline));
    expectResultPage(result, /Payment declined/);
    expect(result.html).toMatch(/Reason:[\s\S]*Do not honor/);
    await h.sandbox.notifier.flush();

    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('declined');
    expect(h.hookCount('onFailed', orderNo)).toBe(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
    expect((await eventsOf(orderNo)).filter((e) => e.type === 'transition').map((e) => e.toState)).toEqual(['pending', 'declined']);
  });

  it('3-D Secure challenge passed: requires_action, then paid through issuer page, notify and return', async () => {
    const orderNo = uniqueOrderNo('J-3DS-OK');
    const { browser, page } = await openPayPage(orderNo);
    const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
    expect((await h.orderOf(orderNo)).state).toBe('requires_action');
    const issuerForm = onlyForm(toIssuer);
    expect(issuerForm.action.startsWith(h.gateway.baseUrl)).toBe(true);
    expect(issuerForm.fields.return_url).toMatch(/\/checkout\/return\/[A-Za-z0-9_.-]+$/);
    expect(issuerForm.fields.notify_url).toBe(`${h.shopUrl}/checkout/notify`);

    const challenge = await browser.submit(toIssuer, issuerForm);
    const decision = onlyForm(challenge);
    const back = await browser.submit(challenge, decision, {}, { name: 'decision', value: 'pass' });
    // The sandbox notified before sending the browser back; both went through the engine.
    const result = await browser.submit(back, onlyForm(back));
    expectResultPage(result, /Payment received/);
    await h.sandbox.notifier.flush();

    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    const events = await eventsOf(orderNo);
    expect(events.filter((e) => e.type === 'transition').map((e) => e.toState)).toEqual(['pending', 'requires_action', 'paid']);
    expect(events.filter((e) => e.type === 'return_hint')).toHaveLength(1);
    expect(h.hookCount('onRequiresAction', orderNo)).toBe(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    expect(ledgerFor(orderNo)).toHaveLength(1);
  });

  it('3-D Secure challenge failed: declined, onFailed once', async () => {
    const orderNo = uniqueOrderNo('J-3DS-NO');
    const { browser, page } = await openPayPage(orderNo);
    const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
    const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
    const back = await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'fail' });
    const result = await browser.submit(back, onlyForm(back));
    expectResultPage(result, /Payment declined/);
    await h.sandbox.notifier.flush();

    expect((await h.orderOf(orderNo)).state).toBe('declined');
    expect(h.hookCount('onFailed', orderNo)).toBe(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
  });
});

describe('APM and hosted page journeys', () => {
  async function toApmIssuer(orderNo: string): Promise<{ browser: Browser; issuer: Page }> {
    const { browser, page } = await openPayPage(orderNo);
    const form = payForm(page, 'apm');
    const issuer = await browser.submit(page, form, { payment_method: 'IDEAL' });
    expect(issuer.url.startsWith(h.gateway.baseUrl)).toBe(true);
    return { browser, issuer };
  }

  it('APM approved at the issuer: paid, onPaid once', async () => {
    const orderNo = uniqueOrderNo('J-APM-OK');
    const { browser, issuer } = await toApmIssuer(orderNo);
    expect((await h.orderOf(orderNo)).state).toBe('requires_action');
    const back = await browser.submit(issuer, onlyForm(issuer), {}, { name: 'decision', value: 'approve' });
    const result = await browser.submit(back, onlyForm(back));
    expectResultPage(result, /Payment received/);
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('paid');
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });

  it('APM abandoned at the issuer: cancelled only after the gateway confirms, onCancelled once', async () => {
    const orderNo = uniqueOrderNo('J-APM-AB');
    const { browser, issuer } = await toApmIssuer(orderNo);
    const back = await browser.submit(issuer, onlyForm(issuer), {}, { name: 'decision', value: 'abandon' });
    const result = await browser.submit(back, onlyForm(back));
    expectResultPage(result, /Payment cancelled/);
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('cancelled');
    expect(h.hookCount('onCancelled', orderNo)).toBe(1);
    const cancelling = (await eventsOf(orderNo)).filter((e) => e.type === 'transition' && e.toState === 'cancelled');
    expect(cancelling).toHaveLength(1);
    expect(cancelling[0]!.data.confirmed ?? cancelling[0]!.data.confirmedBy).toBeTruthy();
  });

  it('hosted page: the browser posts to the gateway, pays on its card page and comes back paid', async () => {
    const orderNo = uniqueOrderNo('J-HOSTED');
    const { browser, page } = await openPayPage(orderNo);
    const autosubmit = await browser.submit(page, payForm(page, 'hosted'));
    const toGateway = onlyForm(autosubmit);
    expect(toGateway.action).toBe(`${h.gateway.baseUrl}/v1/checkout`);
    expect(JSON.stringify(toGateway.fields)).not.toContain('&');
    let cardPage = await browser.submit(autosubmit, toGateway);
    // The gateway's reply is itself an auto-submitting page leading to its card form.
    while (!parseForms(cardPage).some((f) => 'card' in f.fields)) cardPage = await browser.submit(cardPage, onlyForm(cardPage));
    const cardForm = parseForms(cardPage).find((f) => 'card' in f.fields)!;
    const back = await browser.submit(cardPage, cardForm, cardFields(CARD.approve));
    const result = await browser.submit(back, onlyForm(back));
    expectResultPage(result, /Payment received/);
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    expect(order.method).toBe('hosted');
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    expect(ledgerFor(orderNo)).toHaveLength(1);
  });

  it('hosted page cancelled: the cancel hint alone changes nothing, the gateway confirms the cancel', async () => {
    const orderNo = uniqueOrderNo('J-HOST-CX');
    const { browser, page } = await openPayPage(orderNo);
    const autosubmit = await browser.submit(page, payForm(page, 'hosted'));
    let cardPage = await browser.submit(autosubmit, onlyForm(autosubmit));
    while (!parseForms(cardPage).some((f) => 'card' in f.fields)) cardPage = await browser.submit(cardPage, onlyForm(cardPage));
    const cancelForm = parseForms(cardPage).find((f) => f.action.endsWith('/cancel'))!;
    const back = await browser.submit(cardPage, cancelForm);
    const result = await browser.submit(back, onlyForm(back));
    expect(new URL(result.url).pathname).toMatch(/^\/checkout\/result\//);
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('cancelled');
    const events = await eventsOf(orderNo);
    expect(events.filter((e) => e.type === 'cancel_hint')).toHaveLength(1);
    expect(h.hookCount('onCancelled', orderNo)).toBe(1);
  });
});
