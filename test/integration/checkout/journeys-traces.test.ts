/**
 * With an OpenTelemetry SDK installed (in-memory exporter), one payment against the sandbox
 * leaves its spans: the pay request, the gateway call inside it, the hook delivered from the
 * outbox in the same trace (and the shop's own span inside the hook joining it), the
 * notification, and a sweeper batch with its query. No span carries a card number.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser, CARD, cardFields, onlyForm, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager().enable();
let h: Harness;
let failNextOnPaid = false;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  h = await startHarness({
    hooks: {
      // The shop's own span inside a hook.
      onPaid: () => {
        trace.getTracer('shop').startSpan('shop fulfils the order').end();
        if (failNextOnPaid) {
          failNextOnPaid = false;
          throw new Error('the shop is down for a moment');
        }
      },
    },
    // Retries only when the test runs a round.
    outbox: { enabled: false, backoffMs: 200 },
  });
});
afterAll(async () => {
  await h.close();
  trace.disable();
  context.disable();
});

const named = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('spans of one payment', () => {
  it('pay request → gateway call → hook (with the shop span) in one trace; the notification; no card data', async () => {
    exporter.reset();
    const orderNo = uniqueOrderNo('T-PAY');
    // The notification is held back and sent after the answer: landing first, it would move the
    // order itself and the hook would run in its trace instead of the pay request's.
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    const browser = new Browser();
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const page = await browser.get(payUrl);
    const result = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(result.html).toMatch(/Payment received/);
    const held = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo && n.status === 'dropped');
    expect(held).toBeDefined();
    await h.control(`/notifications/${held!.id}/resend`);
    await h.sandbox.notifier.flush();
    await h.kit.engine.outbox.runOnce();

    const [pay] = named('checkout pay');
    expect(pay).toBeDefined();
    expect(pay!.attributes['checkout.method']).toBe('card');
    expect(pay!.attributes['http.response.status_code']).toBeLessThan(500);
    const traceId = pay!.spanContext().traceId;

    const authorise = named('gateway authorise').find((s) => s.spanContext().traceId === traceId);
    expect(authorise).toBeDefined();
    expect(parentOf(authorise!)).toBe(pay!.spanContext().spanId);
    expect(authorise!.attributes['gateway.operation']).toBe('authorise');
    expect(authorise!.attributes['http.response.status_code']).toBe(200);

    // Hooks run from the outbox, in the trace of the change that owed them.
    const onPaid = named('hook onPaid');
    expect(onPaid).toHaveLength(1);
    expect(onPaid[0]!.spanContext().traceId).toBe(traceId);
    const shop = named('shop fulfils the order');
    expect(shop).toHaveLength(1);
    expect(shop[0]!.spanContext().traceId).toBe(traceId);
    expect(parentOf(shop[0]!)).toBe(onPaid[0]!.spanContext().spanId);

    // The gateway's notification: its own span, with how it ended.
    const notify = named('checkout notify');
    expect(notify.length).toBeGreaterThan(0);
    expect(notify.every((s) => typeof s.attributes['checkout.notification.result'] === 'string')).toBe(true);

    const everything = JSON.stringify(exporter.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes })));
    expect(everything).not.toContain(CARD.approve);
    expect(everything).not.toContain(orderNo);
  });

  it('a sweeper batch: its span and the query inside it', async () => {
    const orderNo = uniqueOrderNo('T-SWEEP');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    const browser = new Browser();
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const page = await browser.get(payUrl);
    const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
    const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
    await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' });
    await h.sandbox.notifier.flush();
    expect((await h.kit.store.getByOrderNo(orderNo))?.state).toBe('requires_action');
    exporter.reset();

    const report = await h.kit.sweeper.runOnce();
    expect(report.settled).toBeGreaterThanOrEqual(1);
    expect((await h.kit.store.getByOrderNo(orderNo))?.state).toBe('paid');
    const [batch] = named('sweeper batch');
    expect(batch).toBeDefined();
    expect(batch!.attributes['checkout.sweeper.orders']).toBeGreaterThanOrEqual(1);
    // The query ran before the batch settled; the hooks the batch owed run in its trace.
    expect(named('gateway retrievalTrans').length).toBeGreaterThan(0);
    const hook = named('hook onPaid');
    expect(hook).toHaveLength(1);
    expect(hook[0]!.spanContext().traceId).toBe(batch!.spanContext().traceId);
  });

  it('a hook retried later, outside any request, still joins the payment trace (traceparent kept in the outbox entry)', async () => {
    exporter.reset();
    failNextOnPaid = true;
    const orderNo = uniqueOrderNo('T-RETRY');
    // Only the pay answer may move the order (and owe onPaid in its trace): the notification is held back.
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    const browser = new Browser();
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const page = await browser.get(payUrl);
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    const order = await h.kit.store.getByOrderNo(orderNo);
    const [entry] = await h.kit.store.listOutbox({ orderId: order!.id, limit: 10 });
    expect(entry?.hook).toBe('onPaid');
    expect(entry?.payload.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceId = named('checkout pay')[0]!.spanContext().traceId;
    expect(entry?.payload.traceparent).toContain(traceId);

    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(trace.getActiveSpan()).toBeUndefined();
    await h.kit.engine.outbox.runOnce();
    expect(await h.kit.store.listOutbox({ orderId: order!.id, limit: 10 })).toHaveLength(0);
    const attempts = named('hook onPaid');
    expect(attempts).toHaveLength(2);
    expect(attempts.map((s) => s.spanContext().traceId)).toEqual([traceId, traceId]);
    expect(attempts[0]!.status.code).toBe(2); // ERROR: the first attempt threw
  });
});
