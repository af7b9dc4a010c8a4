/**
 * Notification delivery: form-encoded POSTs to notify_url, retried on non-2xx or network error
 * on the gateway's schedule (retry.ts). Every delivery and every attempt is kept in the ledger;
 * pending deliveries survive a restart when the ledger is a SQLite file.
 */
import type { Logger } from '../logging.js';
import type { FaultRegistry } from './faults.js';
import { newNotificationId } from './ids.js';
import type { LedgerStore } from './ledger.js';
import { FormPoster } from './post-form.js';
import { retryGapMs } from './retry.js';
import type { SandboxNotification } from './types.js';

/** How long after recording a delivery its first attempt goes out (ms). */
const FIRST_ATTEMPT_DELAY_MS = 20;

export interface NotificationInput {
  merchantId: string;
  accountId: string;
  transactionId: string;
  orderNo: string;
  webhooksType: string;
  url: string;
  /** Every field as sent, encryption_data included. */
  fields: Record<string, string>;
  origin?: string;
}

export interface NotifierOptions {
  ledger: LedgerStore;
  faults: FaultRegistry;
  logger: Logger;
  timeScale: number;
  timeoutMs: number;
  random?: () => number;
}

export class Notifier {
  readonly #o: NotifierOptions;
  readonly #poster = new FormPoster();
  /** Retries (and deliveries resumed after a restart), each waiting for its own time. */
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** First attempts, sent together on the next turn of the event loop: one timer for all. */
  readonly #due = new Set<string>();
  #dueTimer: NodeJS.Timeout | undefined;
  readonly #inFlight = new Map<string, AbortController>();
  #waiters: (() => void)[] = [];
  #closed = false;

  constructor(options: NotifierOptions) {
    this.#o = options;
  }

  /** Records a delivery and sends it now (or records it as dropped when a fault says so). */
  enqueue(input: NotificationInput): SandboxNotification | null {
    if (input.url === '' || this.#closed) return null;
    const dropped = this.#o.faults.takeDropNotification({ merchantId: input.merchantId, accountId: input.accountId, orderNos: [input.orderNo] });
    const delivery = this.#record(input, dropped);
    if (!dropped) this.#sendSoon(delivery.id);
    return delivery;
  }

  /** Records copies of several deliveries and sends their first attempts one by one in `order`. */
  async sendInOrder(inputs: NotificationInput[]): Promise<SandboxNotification[]> {
    const created: SandboxNotification[] = [];
    for (const input of inputs) {
      const delivery = this.#record(input);
      created.push(delivery);
      this.#hold(delivery.id);
    }
    for (const delivery of created) {
      await this.#attempt(delivery.id);
    }
    return created;
  }

  /** Re-arms timers for deliveries left pending by a previous run (SQLite file). */
  resume(): void {
    const now = Date.now();
    for (const delivery of this.#o.ledger.notificationRows.find('pending')) {
      const due = delivery.nextAttemptAt === null ? now : Date.parse(delivery.nextAttemptAt);
      this.#schedule(delivery.id, Math.max(0, due - now));
    }
  }

  /** Resolves when no delivery is in flight or scheduled. */
  flush(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Stops every timer and aborts attempts in flight; pending deliveries stay pending. */
  close(): void {
    this.#closed = true;
    this.#clearTimers();
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
    this.#poster.close();
    this.#settle();
  }

  /** Forgets timers (control API reset); the ledger rows are removed by the caller. */
  cancelAll(): void {
    this.#clearTimers();
    this.#settle();
  }

  #clearTimers(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    clearTimeout(this.#dueTimer);
    this.#dueTimer = undefined;
    this.#due.clear();
  }

  #idle(): boolean {
    return this.#timers.size === 0 && this.#due.size === 0 && this.#inFlight.size === 0;
  }

  #record(input: NotificationInput, dropped = false): SandboxNotification {
    const delivery: SandboxNotification = {
      id: newNotificationId(),
      merchantId: input.merchantId,
      accountId: input.accountId,
      transactionId: input.transactionId,
      orderNo: input.orderNo,
      webhooksType: input.webhooksType,
      url: input.url,
      fields: input.fields,
      status: dropped ? 'dropped' : 'pending',
      attempts: [],
      nextAttemptAt: dropped ? null : new Date().toISOString(),
      origin: input.origin ?? 'state-change',
      createdAt: new Date().toISOString(),
    };
    this.#o.ledger.notificationRows.put(delivery.id, delivery);
    return delivery;
  }

  /** Marks a delivery as busy so flush() waits for it, without a timer. */
  #hold(id: string): void {
    this.#inFlight.set(id, new AbortController());
  }

  /**
   * Queues the first attempt of a delivery just recorded. It reads the row back when it runs: a
   * delivery recorded in a transaction that was rolled back is not sent.
   */
  #sendSoon(id: string): void {
    if (this.#closed) return;
    this.#due.add(id);
    if (this.#dueTimer !== undefined) return;
    this.#dueTimer = setTimeout(() => {
      this.#dueTimer = undefined;
      for (const due of this.#due) {
        this.#due.delete(due);
        void this.#attempt(due);
      }
      // An acquirer notifies after it has answered: a first attempt a moment after the answer
      // keeps that usual order here, so a shop's reply handling is what a test of it exercises
      // (control routes still send a notification ahead of the answer on purpose).
    }, FIRST_ATTEMPT_DELAY_MS);
    this.#dueTimer.unref();
  }

  #schedule(id: string, delayMs: number): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      void this.#attempt(id);
    }, delayMs);
    timer.unref();
    this.#timers.set(id, timer);
  }

  async #attempt(id: string): Promise<void> {
    const delivery = this.#o.ledger.notificationRows.get(id);
    if (delivery === undefined || delivery.status !== 'pending' || this.#closed) {
      this.#inFlight.delete(id);
      this.#settle();
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    const timeout = setTimeout(() => {
      controller.abort();
    }, this.#o.timeoutMs);
    const at = new Date().toISOString();
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      httpStatus = await this.#poster.post(delivery.url, new URLSearchParams(delivery.fields).toString(), controller.signal);
    } catch (cause) {
      error = controller.signal.aborted ? 'timeout or aborted' : cause instanceof Error ? cause.message : 'network error';
    } finally {
      clearTimeout(timeout);
    }
    this.#inFlight.delete(id);
    if (this.#isClosed()) {
      this.#settle();
      return;
    }
    this.#afterAttempt(id, { at, httpStatus, error });
    this.#settle();
  }

  #afterAttempt(id: string, attempt: SandboxNotification['attempts'][number]): void {
    const current = this.#o.ledger.notificationRows.get(id);
    if (current === undefined) return; // reset while in flight
    current.attempts.push(attempt);
    const ok = attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300;
    if (ok) {
      current.status = 'delivered';
      current.nextAttemptAt = null;
    } else {
      const gap = retryGapMs(current.attempts.length, this.#o.random);
      if (gap === null) {
        current.status = 'failed';
        current.nextAttemptAt = null;
      } else {
        const scaled = gap * this.#o.timeScale;
        current.nextAttemptAt = new Date(Date.now() + scaled).toISOString();
        this.#schedule(id, scaled);
      }
    }
    this.#o.ledger.notificationRows.put(id, current);
    this.#o.logger.debug(
      { notification: id, orderNo: current.orderNo, httpStatus: attempt.httpStatus, error: attempt.error, status: current.status },
      'sandbox notification attempt',
    );
  }

  /** Read through a method: close() may run while an attempt awaits. */
  #isClosed(): boolean {
    return this.#closed;
  }

  #settle(): void {
    if (!this.#idle()) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
