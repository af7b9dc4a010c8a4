/**
 * `client.notifications.verify(fields)`: the gateway's notification, checked and read with the
 * client's one configuration (sign key, verify keys, recipes, merchant identity), in the way of
 * stripe-node's `webhooks.constructEvent`:
 *  1. the signature (`notification` recipe) against every configured key, in constant time;
 *  2. the merchant and account it is addressed to;
 *  3. the fields (zod), amounts to minor units in the notification's currency;
 *  4. what it reports: its kind (`webhooks_type`), its payment outcome;
 *  5. its dedupe key: every field that makes two notifications different facts.
 * A bad signature (or one for another account) throws a NotificationError; anything signed is
 * returned as a fact, also when the kit does not understand it (`recognised: false`), so the
 * caller can keep it and acknowledge it instead of having the gateway retry it for 36 hours.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { NotificationError, isKitError } from '../../errors.js';
import { NOTIFICATION_TYPES, outcomeOfOrderStatus, outcomeOfPaymentStatus, type NotificationType, type PaymentOutcome } from '../codes.js';
import { parseWireAmount } from '../money.js';
import { notificationSchema } from '../schemas/notifications.js';
import { zodIssuesToFields } from '../schemas/common.js';
import { verifyMessage } from '../signing.js';
import type { ClientContext } from './context.js';
import { compiled } from '../../zod-compiled.js';

/** Fields that make two notifications different facts: the same one delivered twice has the same key. */
export const DEDUPE_FIELDS = [
  'webhooks_type', 'order_no', 'transaction_id', 'order_status', 'payment_status', 'amount', 'currency',
  'refund_reference_id', 'refund_amount', 'chargeback_reason', 'error_code', 'result_info',
] as const;

/**
 * One key per refund, whoever reports it first: the admin action that sent it or the gateway's
 * notification of it. So a refund is counted once even though it arrives by two roads.
 */
export function refundDedupeKey(refundReferenceId: string): string {
  return `refund:${refundReferenceId}`;
}

/** Outcomes that say the gateway holds the shopper's money (authorised, taken, then refunded or disputed). */
const MONEY_OUTCOMES: ReadonlySet<PaymentOutcome> = new Set(['approved', 'authorized', 'partially_refunded', 'refunded', 'chargeback']);

/**
 * payment_status is the more detailed field (it knows refunds); order_status otherwise. Only
 * order_status is signed, and a shopper's browser carries signed return fields it could post
 * here with other unsigned ones: so payment_status (and a chargeback's webhooks_type) may refine
 * the signed order_status but never cross it, claiming money it says was not taken or the reverse.
 */
export function notificationOutcome(fields: Readonly<Record<string, string | undefined>>): PaymentOutcome {
  const signed = outcomeOfOrderStatus(fields.order_status);
  const fromPayment = outcomeOfPaymentStatus(fields.payment_status);
  const chargeback = fields.webhooks_type === 'chargeback' || fields.webhooks_type === 'dispute';
  // A dispute or chargeback notification reports the chargeback whatever status it repeats.
  const claimed = chargeback ? 'chargeback' : fromPayment !== 'unknown' ? fromPayment : signed;
  return signed === 'unknown' || MONEY_OUTCOMES.has(signed) === MONEY_OUTCOMES.has(claimed) ? claimed : signed;
}

export function notificationDedupeKey(fields: Readonly<Record<string, string | undefined>>): string {
  const outcome = notificationOutcome(fields);
  const ref = fields.refund_reference_id;
  // The refund's amount too: one reference reported with two amounts is two facts, and the
  // second must reach the ledger (which flags it) instead of being dropped as a repeat.
  if ((outcome === 'partially_refunded' || outcome === 'refunded') && ref !== undefined && ref !== '') return `${refundDedupeKey(ref)}:${fields.refund_amount ?? ''}`;
  // One string hashed at once: the same bytes as updating a Hash field by field, without its setup.
  let text = '';
  for (const name of DEDUPE_FIELDS) text += `${name}=${fields[name] ?? ''}\n`;
  return `notify:${hash('sha256', text, 'hex')}`;
}

/** What a notification is about. `unrecognised`: signed, but not a kind (or shape) the kit reads. */
export type NotificationKind = 'payment' | 'refund' | 'dispute' | 'payout' | 'unrecognised';

const KIND_OF_TYPE: Readonly<Record<NotificationType, NotificationKind>> = {
  payment: 'payment',
  review: 'payment',
  capture: 'payment',
  cancel: 'payment',
  subscription: 'payment',
  refund: 'refund',
  chargeback: 'dispute',
  dispute: 'dispute',
  payout: 'payout',
};

/** A verified notification. Amounts are minor units of `currency`; nothing here holds card data. */
export interface NotificationFact {
  kind: NotificationKind;
  /** `webhooks_type` as sent ('' when absent: a payment notification). */
  type: string;
  /** Why the kit could not read it (kind `unrecognised` only). */
  problem: string | null;
  orderNo: string | null;
  transactionId: string | null;
  outcome: PaymentOutcome;
  amount: number | null;
  currency: string | null;
  /** This one refund's amount (refund notifications). */
  refundAmount: number | null;
  refundReferenceId: string | null;
  /** Masked card only; anything else is dropped. */
  maskedCard: string | null;
  orderStatus: string | null;
  paymentStatus: string | null;
  resultInfo: string | null;
  chargebackReason: string | null;
  /** The payout request's id (payout notifications), when the gateway echoes it. */
  requestId: string | null;
  /**
   * The subscription fields of a notification that carries them (a deduction's, or the first
   * payment's): `recurring_id` and what goes with it; null when `recurring_id` is absent.
   */
  recurring: NotifiedRecurring | null;
  dedupeKey: string;
  /** Card-free copy of the fields worth keeping on an event (values cut to 200 characters). */
  summary: Record<string, string>;
}

export interface NotifiedRecurring {
  recurringId: string;
  contractName: string | null;
  /** `recurring_deduction_period` as sent, e.g. `1 month`. */
  period: string | null;
  /** `recurring_deduction_time` as sent (`YYYY-MM-DD HH:MM:SS`). */
  time: string | null;
}

export interface NotificationsApi {
  /** Verifies and reads one notification's fields; throws NotificationError for a bad signature. */
  verify(fields: Readonly<Record<string, string>>): NotificationFact;
}

const SUMMARY_FIELDS = [
  'webhooks_type', 'order_no', 'transaction_id', 'order_status', 'payment_status', 'result_info', 'error_code',
  'refund_reference_id', 'refund_amount', 'amount', 'currency', 'chargeback_reason', 'payment_method', 'status', 'request_id',
  'recurring_id', 'recurring_deduction_time',
] as const;

function recurringOf(fields: Readonly<Record<string, string>>): NotifiedRecurring | null {
  const recurringId = present(fields.recurring_id)?.slice(0, 50) ?? null;
  if (recurringId === null) return null;
  return {
    recurringId,
    contractName: present(fields.contract_name)?.slice(0, 200) ?? null,
    period: present(fields.recurring_deduction_period)?.slice(0, 50) ?? null,
    time: present(fields.recurring_deduction_time)?.slice(0, 30) ?? null,
  };
}

const MASKED_CARD_RE = /^\d{0,8}[*xX]{2,}\d{0,4}$/;

/** The schema with `webhooks_type` and `order_no` open: an unknown kind is still a notification. */
const readableSchema = notificationSchema.extend({
  webhooks_type: z.string().max(50).optional(),
  order_no: z.string().max(50).optional(),
});

const present = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

export function summarizeNotification(fields: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SUMMARY_FIELDS) {
    const value = fields[name];
    if (value !== undefined && value !== '') out[name] = value.slice(0, 200);
  }
  return out;
}

/** Reads verified fields into a fact; never throws. */
export function readNotification(fields: Readonly<Record<string, string>>): NotificationFact {
  const type = fields.webhooks_type ?? '';
  const base: NotificationFact = {
    kind: 'unrecognised',
    type,
    problem: null,
    orderNo: present(fields.order_no)?.slice(0, 50) ?? null,
    transactionId: present(fields.transaction_id)?.slice(0, 50) ?? null,
    outcome: notificationOutcome(fields),
    amount: null,
    currency: null,
    refundAmount: null,
    refundReferenceId: present(fields.refund_reference_id),
    maskedCard: fields.card !== undefined && MASKED_CARD_RE.test(fields.card) ? fields.card : null,
    orderStatus: present(fields.order_status),
    paymentStatus: present(fields.payment_status),
    resultInfo: present(fields.result_info),
    chargebackReason: present(fields.chargeback_reason),
    requestId: present(fields.request_id)?.slice(0, 200) ?? null,
    recurring: recurringOf(fields),
    dedupeKey: notificationDedupeKey(fields),
    summary: summarizeNotification(fields),
  };
  const parsed = compiled(readableSchema).safeParse(fields);
  if (!parsed.success) {
    const issue = zodIssuesToFields(parsed.error)[0];
    return { ...base, problem: `invalid ${issue?.field ?? 'field'}: ${issue?.message ?? 'invalid'}` };
  }
  const currency = present(fields.currency);
  try {
    const amount = present(fields.amount);
    const refund = present(fields.refund_amount);
    base.amount = amount === null || currency === null ? null : parseWireAmount(amount, currency, 'amount');
    base.refundAmount = refund === null || currency === null ? null : parseWireAmount(refund, currency, 'refund_amount');
    base.currency = currency;
  } catch (err) {
    return { ...base, problem: isKitError(err) && 'field' in err ? `invalid ${String(err.field)}` : 'invalid amount' };
  }
  const known = (NOTIFICATION_TYPES as readonly string[]).includes(type) ? (type as NotificationType) : type === '' ? 'payment' : null;
  if (known === null) return { ...base, problem: `unknown webhooks_type "${type.slice(0, 50)}"` };
  const kind = KIND_OF_TYPE[known];
  if (kind !== 'payout' && base.orderNo === null && base.transactionId === null) return { ...base, problem: 'names no order_no or transaction_id' };
  if (kind !== 'payout' && base.outcome === 'unknown') {
    return { ...base, problem: `unknown status (order_status "${fields.order_status ?? ''}", payment_status "${fields.payment_status ?? ''}")`.slice(0, 200) };
  }
  return { ...base, kind };
}

export function createNotificationsApi(ctx: ClientContext): NotificationsApi {
  return {
    verify(fields) {
      if (!verifyMessage('notification', fields, fields.encryption_data, ctx.verifyKeys, ctx.recipes)) {
        throw new NotificationError('ERR_NOTIFICATION_SIGNATURE', 'the notification\'s encryption_data does not match any configured key', {
          details: { orderNo: fields.order_no?.slice(0, 50) ?? null, webhooksType: fields.webhooks_type?.slice(0, 50) ?? null },
        });
      }
      if (fields.merchant_id !== ctx.merchantId || fields.account_id !== ctx.accountId) {
        throw new NotificationError('ERR_NOTIFICATION_ACCOUNT', 'the notification is addressed to another merchant account', {
          details: { merchantId: fields.merchant_id?.slice(0, 20) ?? null, accountId: fields.account_id?.slice(0, 20) ?? null },
        });
      }
      return readNotification(fields);
    },
  };
}
