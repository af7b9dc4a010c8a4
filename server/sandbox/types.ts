/**
 * The sandbox's records. Amounts are integer minor units of `currency`. No record ever holds a
 * card number, CVV or expiry: only the masked card (first 6, `******`, last 4).
 */

export type CaptureMode = 'auto' | 'manual';

export interface SandboxAccount {
  merchantId: string;
  accountId: string;
  signKey: string;
  captureMode: CaptureMode;
}

export type TransactionKind = 'card' | 'apm' | 'hosted';

/** One step in a transaction's life, for the inspector and for tests. */
export interface TransactionEvent {
  at: string;
  event: string;
  orderStatus: string;
  paymentStatus: string;
  resultInfo: string;
}

export interface RiskReason {
  name: string;
  status: string;
}

export interface SandboxTransaction {
  transactionId: string;
  merchantId: string;
  accountId: string;
  orderNo: string;
  kind: TransactionKind;
  /** `CARD` or the APM code. */
  paymentMethod: string;
  amount: number;
  currency: string;
  /** Masked card, or '' before a card was given (hosted page) and for APMs. */
  card: string;
  orderStatus: string;
  paymentStatus: string;
  resultInfo: string;
  captureMode: CaptureMode;
  capturedAmount: number;
  refundedAmount: number;
  refundCount: number;
  is3ds: boolean;
  threedsResult: string;
  riskAction: string;
  riskScore: string;
  riskReasons: RiskReason[];
  notifyUrl: string;
  returnUrl: string;
  cancelUrl: string;
  tokenId: string;
  recurringId: string;
  /** Set on a subscription's deduction: the transaction that started the subscription. */
  deductionOf?: string;
  /** A deduction's scheduled time (ISO), on the sandbox clock. */
  deductionAt?: string;
  chargebackReason: string;
  /** Card-free request fields kept for query replies (website, shopper, delivery, note…). */
  details: Record<string, string>;
  /** What a pending 3-D Secure / hosted payment will do once decided (card-free). */
  pending: PendingPayment | null;
  history: TransactionEvent[];
  createdAt: string;
  updatedAt: string;
}

/** Held while the shopper is at an issuer page: the outcome the card would have had, never the card. */
export interface PendingPayment {
  subscription: SubscriptionRequest | null;
  tokenize: boolean;
  behaviour: string;
}

export interface SubscriptionRequest {
  contractName: string;
  contractAmount: string;
  interval: string;
  intervalCount: number;
  /** Deductions after the first payment; 0: until cancelled or contract_end. */
  billingCycle: number;
  /** The first this many deductions are charged at the first payment's amount. */
  promotionCycle: number;
  /** ISO times, or null when absent or unreadable. */
  contractStart: string | null;
  contractEnd: string | null;
}

export interface SandboxRefund {
  refundReferenceId: string;
  refundReference: string;
  transactionId: string;
  orderNo: string;
  merchantId: string;
  accountId: string;
  currency: string;
  /** The original transaction amount. */
  amount: number;
  refundAmount: number;
  refundReason: string;
  refundStatus: string;
  refundMessage: string;
  /** The transaction's payment_status right after this refund. */
  paymentStatus: string;
  refundDate: string;
  refundProcessingDate: string;
  createdAt: string;
}

export interface SandboxPayout {
  requestId: string;
  merchantId: string;
  accountId: string;
  transactionId: string;
  shortReferenceId: string;
  status: string;
  paymentAmount: string;
  paymentCurrency: string;
  notifyUrl: string;
  /** The exact reply bytes, so a duplicate request_id gets the same answer. */
  reply: string;
  createdAt: string;
}

export interface SandboxSubscription {
  recurringId: string;
  transactionId: string;
  merchantId: string;
  accountId: string;
  orderNo: string;
  contractName: string;
  contractAmount: string;
  currency: string;
  interval: string;
  intervalCount: number;
  /** `recurring_deduction_period` as replied, e.g. `1 month`. */
  period: string;
  /** `ended`: billing_cycle deductions were charged or contract_end passed. */
  status: 'active' | 'cancelled' | 'ended';
  nextDeductionAt: string;
  createdAt: string;
  cancelledAt: string | null;
  /** Absent on subscriptions stored before deductions were charged (read as 0 / null). */
  billingCycle?: number;
  promotionCycle?: number;
  contractEnd?: string | null;
  /** The first payment's amount, minor units (charged during the promotion cycles). */
  firstAmount?: number;
  /** Deductions charged so far (paid or failed). */
  deductions?: number;
  /** When set, the next deduction is declined with this result_info, then it is cleared. */
  failNext?: string | null;
  endedAt?: string | null;
  /** The contract start's day of the month (UTC): monthly deductions keep it, clamped to short months. Absent on older rows (the last deduction's day). */
  anchorDay?: number;
}

export interface DeliveryAttempt {
  at: string;
  /** HTTP status, when an answer came back. */
  httpStatus: number | null;
  error: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';

export interface SandboxNotification {
  id: string;
  merchantId: string;
  accountId: string;
  transactionId: string;
  orderNo: string;
  webhooksType: string;
  url: string;
  fields: Record<string, string>;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** ISO time of the next scheduled attempt, null when none is scheduled. */
  nextAttemptAt: string | null;
  /** Why this delivery exists beyond a state change: `resend`, `twice`, `bad-signature`, `shuffle`. */
  origin: string;
  createdAt: string;
}

export type SessionKind = '3ds' | 'apm' | 'hosted';

/** An issuer or hosted page, keyed by an unguessable id that appears in its URL. */
export interface SandboxSession {
  id: string;
  kind: SessionKind;
  transactionId: string;
  state: 'open' | 'done';
  /** Card-free request fields the page needs (checkout request, return/notify URLs). */
  data: Record<string, string>;
  createdAt: string;
}

export interface SandboxUpdateOrder {
  id: string;
  merchantId: string;
  accountId: string;
  transactionId: string;
  status: string;
  ispass3d: string;
  receivedAt: string;
}

/** A stored card token: the masked card and the test behaviour, never the number. */
export interface SandboxToken {
  tokenId: string;
  merchantId: string;
  accountId: string;
  card: string;
  behaviour: string;
  createdAt: string;
  /** Set when the token was removed (control API); a removed token is declined like an unknown one. */
  removedAt?: string | null;
}
