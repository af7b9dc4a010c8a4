/**
 * Payouts: the form (its `request_id` generated once and kept in a hidden field), sending, the
 * result page and the list. A double submit of the same form is idempotent: the payout is
 * reserved in the AdminStore under its request_id before the gateway is called, so a second
 * submit finds it and shows that payout instead of sending another.
 */
import { randomUUID } from 'node:crypto';
import type { Response, Router } from 'express';
import { ValidationError, isKitError } from '../../errors.js';
import { payoutInputSchema } from '../../gateway/operations/payouts.js';
import type { PayoutResult } from '../../gateway/operations/payouts.js';
import { zodIssuesToFields } from '../../gateway/schemas/common.js';
import { first } from '../../http/form-body.js';
import type { Flash } from '../flash.js';
import { isOutcomeUnknown } from '../gateway-actions.js';
import { PAYOUT_FIELDSETS, beneficiaryLabel, buildPayoutInput, payoutValues } from '../payout-form.js';
import { formOf } from '../security.js';
import type { PayoutPatch, PayoutRecord } from '../store.js';
import { sendError, sendView } from '../views.js';
import { param, redirect, staffOf } from './context.js';
import type { RouteContext } from './context.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The answer's status: failed, completed, or, when it says neither (PENDING, PROCESSING, none),
 * pending until the payout's notification says how it ended.
 */
function patchFromResult(result: PayoutResult): PayoutPatch {
  const { encryption_data: _signature, ...response } = result.raw;
  const failed = result.failureReason !== null || (result.status !== null && /FAIL|REJECT|CANCEL/i.test(result.status));
  const completed = !failed && result.status !== null && /COMPLETE|SUCCESS|PAID/i.test(result.status);
  return {
    status: failed ? 'failed' : completed ? 'completed' : 'pending',
    transactionId: result.transactionId,
    message: failed ? (result.failureReason ?? result.status) : (result.status ?? 'accepted'),
    response,
  };
}

function flashFor(saved: PayoutRecord | null): Flash {
  switch (saved?.status) {
    case 'completed':
      return { kind: 'ok', text: `Payout sent: ${saved.message ?? 'accepted'}.` };
    case 'pending':
      return { kind: 'ok', text: `Payout accepted by the gateway (${saved.message ?? 'pending'}); its notification will say when it completes.` };
    case 'unknown':
      return { kind: 'warning', text: `Payout not completed: ${saved.message ?? 'unknown'}.` };
    default:
      return { kind: 'error', text: `Payout not completed: ${saved?.message ?? 'unknown'}.` };
  }
}

export function registerPayoutRoutes(router: Router, ctx: RouteContext): void {
  const { adminStore, kit, logger } = ctx.options;

  async function showForm(res: Response, values: Record<string, string>, requestId: string, error: string | null, status = 200): Promise<void> {
    const payouts = await adminStore.listPayouts({ limit: 50 });
    sendView(res, ctx.views, 'payouts', {
      title: 'Payouts', section: 'payouts', fieldsets: PAYOUT_FIELDSETS, values, requestId, error, payouts,
    }, status);
  }

  router.get('/payouts', async (_req, res) => {
    await showForm(res, payoutValues(null), randomUUID(), null);
  });

  router.post('/payouts', async (_req, res) => {
    const fields = formOf(res);
    const requestId = first(fields, 'request_id');
    if (!UUID_RE.test(requestId)) throw new ValidationError([{ field: 'request_id', message: 'must be the UUID of the form; reload the page' }]);
    const seen = await adminStore.getPayout(requestId);
    if (seen !== null) {
      redirect(ctx, res, `/payouts/${seen.requestId}`, { kind: 'warning', text: 'This payout form was already submitted; nothing was sent again.' });
      return;
    }
    const values = payoutValues(fields);
    let input;
    try {
      input = buildPayoutInput(values, requestId);
      // The payout's result notification reaches the kit, which updates this record.
      if (ctx.options.payoutNotifyUrl !== undefined) input = { ...input, notify_url: ctx.options.payoutNotifyUrl };
      const checked = payoutInputSchema.safeParse(input);
      if (!checked.success) throw new ValidationError(zodIssuesToFields(checked.error));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      await showForm(res, values, requestId, `Invalid ${err.field}: ${err.issues[0]?.message ?? 'invalid'}. Nothing was sent.`, 400);
      return;
    }

    const at = new Date();
    const record: PayoutRecord = {
      requestId, createdBy: staffOf(res).id, status: 'submitting', amount: input.payment_amount, currency: input.payment_currency,
      beneficiary: beneficiaryLabel(values), reference: values.reference ?? '', transactionId: null, message: null,
      request: input, response: null, createdAt: at, updatedAt: at,
    };
    const reserved = await adminStore.savePayout(record);
    if (!reserved.saved) {
      redirect(ctx, res, `/payouts/${requestId}`, { kind: 'warning', text: 'This payout form was already submitted; nothing was sent again.' });
      return;
    }
    let patch: PayoutPatch;
    try {
      patch = patchFromResult(await kit.client.payouts.create(input));
    } catch (err) {
      logger.warn({ err, requestId }, 'admin: payout failed');
      const code = isKitError(err) ? err.code : 'ERR_UNKNOWN';
      patch = isOutcomeUnknown(err)
        ? { status: 'unknown', message: `no answer from the gateway (${code}): the payout may have been made. Check with the gateway quoting request_id ${requestId}; it was not re-sent` }
        : { status: 'failed', message: `refused (${code}): ${err instanceof Error ? err.message : 'unknown error'}` };
    }
    // The payout's notification may have settled it while its answer was on its way or lost:
    // the notification's final word stands; "no answer" or "pending" does not overwrite it.
    const settled = patch.status === 'unknown' || patch.status === 'pending' ? await adminStore.getPayout(requestId) : null;
    const saved = settled !== null && settled.status !== 'submitting' ? settled : await adminStore.updatePayout(requestId, patch);
    redirect(ctx, res, `/payouts/${requestId}`, flashFor(saved));
  });

  // Signed notifications nothing matched (checkout/notification-facts.ts keeps them here).
  router.get('/notifications', async (_req, res) => {
    const notifications = await adminStore.listNotifications({ limit: 200 });
    sendView(res, ctx.views, 'notifications', { title: 'Notifications', section: 'notifications', notifications });
  });

  router.get('/payouts/:requestId', async (req, res) => {
    const payout = await adminStore.getPayout(param(req, 'requestId'));
    if (payout === null) {
      sendError(res, ctx.views, 404, 'Payout not found', 'No payout has this request id.');
      return;
    }
    sendView(res, ctx.views, 'payout', {
      title: 'Payout', section: 'payouts', payout,
      responseText: payout.response === null ? '' : JSON.stringify(payout.response, null, 2),
    });
  });
}
