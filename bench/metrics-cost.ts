/**
 * What the kit's metrics and (no-op) spans add to one notification: the exact calls a notify
 * that applies a payment makes (the notify span, the notifications counter, the payment-finished
 * counter and settle histogram, the trace context for its hook entries), timed in-process, then
 * expressed as a share of one notify request at the measured notify throughput. The server
 * handles notify on one thread, so 1 / notify_rps is the time one request takes of it.
 */
import { createKitMetrics } from '../server/observability/metrics.js';
import { inSpan, withTraceContext } from '../server/tracing.js';

const ROUNDS = 200_000;

/** Nanoseconds the metrics and span calls of one applied notification take (median of 5 runs). */
export async function metricsNsPerNotify(): Promise<number> {
  const metrics = createKitMetrics();
  const createdAt = new Date(Date.now() - 30_000);
  const entries = [{ hook: 'onPaid', payload: { source: 'notify', from: 'pending', to: 'paid' } }];
  const once = async (): Promise<void> => {
    await inSpan('checkout notify', {}, async () => {
      withTraceContext(entries);
      metrics.paymentFinished('card', 'paid', null, createdAt);
      metrics.notification('applied');
      await Promise.resolve();
    });
  };
  const bare = async (): Promise<void> => {
    await (async () => {
      await Promise.resolve();
    })();
  };
  const time = async (fn: () => Promise<void>): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ROUNDS; i++) await fn();
    return Number(process.hrtime.bigint() - start) / ROUNDS;
  };
  await time(once);
  const samples: number[] = [];
  for (let run = 0; run < 5; run++) samples.push(Math.max(0, (await time(once)) - (await time(bare))));
  samples.sort((a, b) => a - b);
  return samples[2] ?? NaN;
}

/** The metrics' share of one notify request, in percent. */
export async function metricsNotifyCostPct(notifyRps: number): Promise<number> {
  return ((await metricsNsPerNotify()) * notifyRps) / 1e9 * 100;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const ns = await metricsNsPerNotify();
  const rps = Number(process.argv[2] ?? NaN);
  process.stdout.write(`metrics per notify: ${ns.toFixed(0)} ns${Number.isFinite(rps) ? `; at ${String(rps)} notify/s: ${((ns * rps) / 1e7).toFixed(2)} %` : ''}\n`);
}
