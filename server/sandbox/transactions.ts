/** Creating transactions from requests, keeping only card-free fields. */
import type { SandboxContext } from './context.js';
import { SandboxHttpError } from './http.js';
import { newTransactionId } from './ids.js';
import type { SandboxAccount, SandboxTransaction, SubscriptionRequest, TransactionKind } from './types.js';
import { ERROR_CODES } from './wire/codes.js';

/** Request fields kept for query replies and pages. Card fields are never among them. */
export const DETAIL_FIELDS = [
  'website', 'note', 'custom', 'items', 'shopper_id', 'shopper_email', 'shopper_phone', 'shopper_ip', 'shopper_level',
  'first_name', 'last_name', 'billing_country', 'billing_state', 'billing_city', 'billing_address', 'billing_postal_code',
  'delivery_firstname', 'delivery_lastname', 'delivery_country', 'delivery_state', 'delivery_city', 'delivery_address',
  'delivery_postal_code', 'open3d', 'default_lang',
] as const;

export function pickDetails(request: Readonly<Record<string, unknown>>): Record<string, string> {
  const details: Record<string, string> = {};
  for (const name of DETAIL_FIELDS) {
    const value = request[name];
    if (typeof value === 'string' && value !== '') details[name] = value;
  }
  return details;
}

export interface NewTransactionInput {
  orderNo: string;
  kind: TransactionKind;
  paymentMethod: string;
  amount: number;
  currency: string;
  notifyUrl?: string | undefined;
  returnUrl?: string | undefined;
  cancelUrl?: string | undefined;
  details: Record<string, string>;
}

/** Refuses an order_no this account already used (I0002): nothing is charged. */
export function assertNewOrder(ctx: SandboxContext, account: SandboxAccount, orderNo: string): void {
  if (ctx.ledger.byOrderNo(account.merchantId, account.accountId, orderNo) !== undefined) {
    throw new SandboxHttpError(400, ERROR_CODES.duplicateOrder, 'order_no', `order_no ${orderNo} was already used by this account`);
  }
}

export function newTransaction(account: SandboxAccount, input: NewTransactionInput): SandboxTransaction {
  const now = new Date();
  return {
    transactionId: newTransactionId(now),
    merchantId: account.merchantId,
    accountId: account.accountId,
    orderNo: input.orderNo,
    kind: input.kind,
    paymentMethod: input.paymentMethod,
    amount: input.amount,
    currency: input.currency,
    card: '',
    orderStatus: '',
    paymentStatus: '',
    resultInfo: '',
    captureMode: account.captureMode,
    capturedAmount: 0,
    refundedAmount: 0,
    refundCount: 0,
    is3ds: false,
    threedsResult: '',
    riskAction: 'ACCEPT',
    riskScore: '10',
    riskReasons: [{ name: 'card_bin', status: 'ACCEPT' }],
    notifyUrl: input.notifyUrl ?? '',
    returnUrl: input.returnUrl ?? '',
    cancelUrl: input.cancelUrl ?? '',
    tokenId: '',
    recurringId: '',
    chargebackReason: '',
    details: input.details,
    pending: null,
    history: [],
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

interface SubscriptionFields {
  contract_name?: string | undefined;
  contract?: string | undefined;
  contract_amount?: string | undefined;
  interval?: string | undefined;
  interval_count?: string | undefined;
  billing_cycle?: number | undefined;
  promotion_cycle?: number | undefined;
  contract_start?: string | undefined;
  contract_end?: string | undefined;
}

/** A contract date (`YYYY-MM-DD` or ISO 8601) as ISO, or null when absent or unreadable. */
function contractDate(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? `${value.trim()}T00:00:00Z` : value.trim();
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The subscription an approved payment will create, or null. */
export function subscriptionRequest(subscription: SubscriptionFields | undefined, amount: string): SubscriptionRequest | null {
  if (subscription === undefined) return null;
  const interval = (subscription.interval ?? 'month').toLowerCase();
  return {
    contractName: subscription.contract_name ?? subscription.contract ?? '',
    contractAmount: subscription.contract_amount ?? amount,
    interval: ['day', 'week', 'month', 'year'].includes(interval) ? interval : 'month',
    intervalCount: Math.max(1, Number(subscription.interval_count ?? '1') || 1),
    billingCycle: subscription.billing_cycle ?? 0,
    promotionCycle: subscription.promotion_cycle ?? 0,
    contractStart: contractDate(subscription.contract_start),
    contractEnd: contractDate(subscription.contract_end),
  };
}
