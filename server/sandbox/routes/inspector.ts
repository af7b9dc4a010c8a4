/** GET / — the inspector: every record of the ledger, with buttons that post to the control API. */
import type { Express } from 'express';
import type { SandboxContext } from '../context.js';
import { FAULT_KINDS, SANDBOX_OPERATIONS } from '../faults.js';
import { LOOPBACK_IPS } from '../options.js';
import type { Pages } from '../pages.js';
import { nominalSchedule } from '../retry.js';
import { sendReply } from '../http.js';
import { decimalAmount } from '../wire/format.js';

const money = (minor: number, currency: string): string => `${decimalAmount(minor, currency)} ${currency}`;

function gapText(ms: number): string {
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1).replace(/\.0$/, '')} h`;
  if (ms >= 60_000) return `${Math.round(ms / 60_000)} min`;
  return `${ms / 1000} s`;
}

/** The inspector shows the latest attempts; the ledger keeps them all. */
const SHOWN_ATTEMPTS = 4;

export function mountInspector(app: Express, ctx: SandboxContext, pages: Pages): void {
  app.get('/', (req, res) => {
    if (!LOOPBACK_IPS.includes(req.socket.remoteAddress ?? '')) {
      sendReply(res, pages.message({ title: 'Inspector', message: 'The inspector answers loopback callers only.', lang: 'en' }, 403));
      return;
    }
    const base = req.baseUrl;
    const newestFirst = <T>(list: T[]): T[] => list.reverse();
    const transactions = newestFirst(ctx.ledger.transactions()).map((t) => ({
      ...t,
      amountText: money(t.amount, t.currency),
      capturedText: money(t.capturedAmount, t.currency),
      refundedText: money(t.refundedAmount, t.currency),
    }));
    const refunds = newestFirst(ctx.ledger.refunds()).map((r) => ({ ...r, refundText: money(r.refundAmount, r.currency) }));
    sendReply(
      res,
      pages.render('inspector', {
        title: 'Inspector',
        wide: true,
        base,
        accounts: [...ctx.accounts.values()].map((a) => ({ merchantId: a.merchantId, accountId: a.accountId, captureMode: a.captureMode })),
        transactions,
        refunds,
        payouts: newestFirst(ctx.ledger.payouts()),
        subscriptions: newestFirst(ctx.ledger.subscriptions()),
        notifications: newestFirst(ctx.ledger.notifications()).map((n) => ({
          ...n,
          earlierAttempts: Math.max(0, n.attempts.length - SHOWN_ATTEMPTS),
          attempts: n.attempts.slice(-SHOWN_ATTEMPTS),
        })),
        faults: ctx.faults.list(),
        faultKinds: FAULT_KINDS,
        operations: ['*', ...SANDBOX_OPERATIONS],
        schedule: nominalSchedule().map(gapText).join(', '),
        timeScale: ctx.options.notifyTimeScale,
        clock: ctx.clock.offsetMs === 0 ? `${ctx.clock.now().toISOString()} (real time)` : ctx.clock.now().toISOString(),
      }, { formTargets: [`${base}/_sandbox/`] }),
    );
  });
}
