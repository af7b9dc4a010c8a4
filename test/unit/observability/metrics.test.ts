/** The metrics object: decline families, final states only, the shop's registry, store-read gauges. */
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { createCheckoutKit } from '../../../server/kit.js';
import { createKitMetrics } from '../../../server/observability/metrics.js';
import { declineFamily } from '../../../server/observability/observer.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { parseScrape } from '../../helpers/prometheus.js';

describe('declineFamily', () => {
  it('maps known result codes to a fixed family and anything else to other', () => {
    expect(declineFamily('0051')).toBe('insufficient_funds');
    expect(declineFamily('0005:Do not honor')).toBe('do_not_honor');
    expect(declineFamily('0201')).toBe('authentication_failed');
    expect(declineFamily('9999')).toBe('other');
    expect(declineFamily('shopper@example.test')).toBe('other');
    expect(declineFamily(null)).toBe('unknown');
  });
});

describe('createKitMetrics', () => {
  it('counts only final states, with the decline family on declines, and observes the settle time', async () => {
    const metrics = createKitMetrics();
    const createdAt = new Date(Date.now() - 42_000);
    metrics.paymentFinished('card', 'pending', null, createdAt);
    metrics.paymentFinished('card', 'declined', '0051', createdAt);
    metrics.paymentFinished('apm', 'paid', null, createdAt);
    const s = parseScrape(await metrics.text());
    expect(s.value('checkout_payments_finished_total')).toBe(2);
    expect(s.value('checkout_payments_finished_total', { method: 'card', outcome: 'declined', decline_family: 'insufficient_funds' })).toBe(1);
    expect(s.value('checkout_payment_settle_seconds_count', { method: 'apm', outcome: 'paid' })).toBe(1);
    expect(s.value('checkout_payment_settle_seconds_sum', { method: 'apm', outcome: 'paid' })).toBeGreaterThanOrEqual(42);
    // Nothing from the store without a store.
    expect(s.text).not.toContain('checkout_orders_pending');
  });

  it('counts what each sweeper run changed, the revisit round\'s missed changes and errors with the rest', async () => {
    const metrics = createKitMetrics();
    metrics.sweepFinished({ settled: 2, expired: 1, errors: 1, revisits: { changed: 3, errors: 2 } });
    metrics.sweepFinished({ settled: 0, expired: 0, errors: 0 });
    const s = parseScrape(await metrics.text());
    expect(s.value('checkout_sweeper_runs_total')).toBe(2);
    expect(s.value('checkout_sweeper_settled_total', { result: 'settled' })).toBe(2);
    expect(s.value('checkout_sweeper_settled_total', { result: 'expired' })).toBe(1);
    expect(s.value('checkout_sweeper_settled_total', { result: 'missed_change' })).toBe(3);
    expect(s.value('checkout_sweeper_settled_total', { result: 'error' })).toBe(3);
  });

  it('reads pending orders and the hook outbox from the store when scraped', async () => {
    const store = createMemoryStore();
    const metrics = createKitMetrics({ store });
    expect(parseScrape(await metrics.text()).value('checkout_orders_pending')).toBe(0);
    const order = await store.create({ id: randomUUID(), orderNo: 'U-1', amount: 100, currency: 'EUR' });
    await store.transition(order.id, 0, { state: 'pending' }, undefined, { outbox: [{ hook: 'onTransition', payload: { source: 'api' } }] });
    const s = parseScrape(await metrics.text());
    expect(s.value('checkout_orders_pending')).toBe(1);
    expect(s.value('checkout_hook_outbox_entries', { status: 'pending' })).toBe(1);
    expect(s.value('checkout_orders_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
  });

  it("the kit registers its metrics in the shop's own registry, and refuses anything else as one", async () => {
    const registry = new Registry();
    const kit = createCheckoutKit({
      store: createMemoryStore(),
      gateway: { baseUrl: 'http://127.0.0.1:9', merchantId: '701001', accountId: '701001010', signKey: 'k' },
      publicUrl: 'http://127.0.0.1/checkout',
      tokenSecret: `unit-token-secret-${randomUUID()}`,
      sweeper: { enabled: false },
      outbox: { enabled: false },
      metrics: { registry },
    });
    try {
      expect(kit.metrics.registry).toBe(registry);
      expect(registry.getSingleMetric('checkout_payments_started_total')).toBeDefined();
    } finally {
      await kit.close();
    }
    expect(() => createCheckoutKit({
      gateway: { baseUrl: 'http://127.0.0.1:9', merchantId: '701001', accountId: '701001010', signKey: 'k' },
      publicUrl: 'http://127.0.0.1/checkout',
      tokenSecret: `unit-token-secret-${randomUUID()}`,
      metrics: { registry: JSON.parse('{}') as Registry },
    })).toThrow(ConfigError);
  });
});

describe('a store that cannot be read', () => {
  it('does not fail the scrape: the other figures are served and the failure is counted', async () => {
    const store = createMemoryStore();
    const metrics = createKitMetrics({ store });
    metrics.notification('applied');
    store.list = () => Promise.reject(new Error('store closed'));
    store.countOutbox = () => Promise.reject(new Error('store closed'));
    const s = parseScrape(await metrics.text());
    expect(s.value('checkout_notifications_total', { result: 'applied' })).toBe(1);
    // Counted as the gauges are read: the next scrape shows the failures of this one.
    expect(parseScrape(await metrics.text()).value('checkout_metrics_store_errors_total')).toBeGreaterThanOrEqual(2);
  });
});
