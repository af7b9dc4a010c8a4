/**
 * The ledger: every record the sandbox keeps, over the SQLite tables. Tests and the inspector
 * read it through `SandboxLedger`; the endpoints write through `LedgerStore`.
 */
import { Collection, type SandboxDatabase } from './db.js';
import type {
  SandboxNotification,
  SandboxPayout,
  SandboxRefund,
  SandboxSession,
  SandboxSubscription,
  SandboxToken,
  SandboxTransaction,
  SandboxUpdateOrder,
} from './types.js';

/** Read-only view for tests, the inspector and the control API. Every call returns copies. */
export interface SandboxLedger {
  transactions(): SandboxTransaction[];
  /** By transaction_id first, then by order_no (the first account that has it). */
  transaction(orderNoOrTransactionId: string): SandboxTransaction | undefined;
  refunds(): SandboxRefund[];
  payouts(): SandboxPayout[];
  subscriptions(): SandboxSubscription[];
  /** Every delivery, each with its attempts. */
  notifications(): SandboxNotification[];
  updateOrders(): SandboxUpdateOrder[];
}

export const accountKey = (merchantId: string, accountId: string): string => `${merchantId}/${accountId}`;

export class LedgerStore implements SandboxLedger {
  readonly tx: Collection<SandboxTransaction>;
  readonly refundRows: Collection<SandboxRefund>;
  readonly payoutRows: Collection<SandboxPayout>;
  readonly subscriptionRows: Collection<SandboxSubscription>;
  readonly notificationRows: Collection<SandboxNotification>;
  readonly sessions: Collection<SandboxSession>;
  readonly updateOrderRows: Collection<SandboxUpdateOrder>;
  readonly tokens: Collection<SandboxToken>;
  readonly database: SandboxDatabase;

  constructor(database: SandboxDatabase) {
    const { db, settle } = database;
    this.database = database;
    this.tx = new Collection(db, 'transactions', (t) => [accountKey(t.merchantId, t.accountId), t.orderNo], settle);
    this.refundRows = new Collection(db, 'refunds', (r) => [accountKey(r.merchantId, r.accountId), r.transactionId], settle);
    this.payoutRows = new Collection(db, 'payouts', (p) => [accountKey(p.merchantId, p.accountId), p.requestId], settle);
    this.subscriptionRows = new Collection(db, 'subscriptions', (s) => [accountKey(s.merchantId, s.accountId), s.recurringId], settle);
    this.notificationRows = new Collection(db, 'notifications', (n) => [n.status, n.transactionId], settle);
    this.sessions = new Collection(db, 'sessions', (s) => [s.kind, s.transactionId], settle);
    this.updateOrderRows = new Collection(db, 'update_orders', (u) => [accountKey(u.merchantId, u.accountId), u.transactionId], settle);
    this.tokens = new Collection(db, 'tokens', (t) => [accountKey(t.merchantId, t.accountId), t.tokenId], settle);
  }

  transactions(): SandboxTransaction[] {
    return this.tx.all();
  }

  transaction(orderNoOrTransactionId: string): SandboxTransaction | undefined {
    return this.tx.get(orderNoOrTransactionId) ?? this.tx.all().find((t) => t.orderNo === orderNoOrTransactionId);
  }

  /** The account's transaction with this order_no. */
  byOrderNo(merchantId: string, accountId: string, orderNo: string): SandboxTransaction | undefined {
    return this.tx.find(accountKey(merchantId, accountId), orderNo)[0];
  }

  /** The account's transaction with this transaction_id (another account's is not found). */
  byTransactionId(merchantId: string, accountId: string, transactionId: string): SandboxTransaction | undefined {
    const found = this.tx.get(transactionId);
    return found !== undefined && found.merchantId === merchantId && found.accountId === accountId ? found : undefined;
  }

  accountTransactions(merchantId: string, accountId: string): SandboxTransaction[] {
    return this.tx.find(accountKey(merchantId, accountId));
  }

  /** The account's transactions with one of these order numbers or transaction ids, oldest first. */
  accountTransactionsMatching(merchantId: string, accountId: string, orderNos: readonly string[], transactionIds: readonly string[]): SandboxTransaction[] {
    return this.tx.findAny(accountKey(merchantId, accountId), orderNos, transactionIds);
  }

  /** The account's newest `limit` transactions, oldest first. */
  latestAccountTransactions(merchantId: string, accountId: string, limit: number): SandboxTransaction[] {
    return this.tx.last(accountKey(merchantId, accountId), limit);
  }

  saveTransaction(t: SandboxTransaction): void {
    this.tx.put(t.transactionId, t);
  }

  /** Saves a change to a transaction read from the ledger (cheaper than saveTransaction for those). */
  updateTransaction(t: SandboxTransaction): void {
    this.tx.rewrite(t.transactionId, t);
  }

  refunds(): SandboxRefund[] {
    return this.refundRows.all();
  }

  accountRefunds(merchantId: string, accountId: string): SandboxRefund[] {
    return this.refundRows.find(accountKey(merchantId, accountId));
  }

  payouts(): SandboxPayout[] {
    return this.payoutRows.all();
  }

  subscriptions(): SandboxSubscription[] {
    return this.subscriptionRows.all();
  }

  notifications(): SandboxNotification[] {
    return this.notificationRows.all();
  }

  updateOrders(): SandboxUpdateOrder[] {
    return this.updateOrderRows.all();
  }

  /** Forgets everything (control API `reset`). */
  reset(): void {
    this.database.atomically(() => {
      for (const c of [this.tx, this.refundRows, this.payoutRows, this.subscriptionRows, this.notificationRows, this.sessions, this.updateOrderRows, this.tokens] as Collection<unknown>[]) {
        c.clear();
      }
    });
  }
}
