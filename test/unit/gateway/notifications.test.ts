import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NotificationError } from '../../../server/errors.js';
import { createGatewayClient } from '../../../server/gateway/client.js';
import { notificationDedupeKey } from '../../../server/gateway/operations/notifications.js';
import { signMessage } from '../../../server/gateway/signing.js';

const KEY = 'current-sign-key';
const OLD = 'previous-sign-key';
const client = createGatewayClient({ baseUrl: 'http://127.0.0.1:9', merchantId: '701001', accountId: '701001010', signKey: KEY, verifyKeys: [OLD] });

const base = {
  merchant_id: '701001', account_id: '701001010', order_no: 'A-1', transaction_id: 'T-1', amount: '8.90', currency: 'EUR',
  order_status: '1', payment_status: '3000', result_info: '0000:Success', webhooks_type: 'payment', card: '424242******4242',
};
const signed = (fields: Record<string, string>, key = KEY): Record<string, string> => ({ ...fields, encryption_data: signMessage('notification', fields, key) });

describe('client.notifications.verify', () => {
  it('reads a signed payment notification into minor units, with a masked card only', () => {
    const fact = client.notifications.verify(signed(base));
    expect(fact).toMatchObject({ kind: 'payment', outcome: 'approved', amount: 890, currency: 'EUR', orderNo: 'A-1', transactionId: 'T-1', maskedCard: '424242******4242', problem: null });
    expect(client.notifications.verify(signed({ ...base, amount: '1000', currency: 'JPY' })).amount).toBe(1000);
    expect(client.notifications.verify(signed({ ...base, amount: '1.234', currency: 'KWD' })).amount).toBe(1234);
  });

  it('accepts a rotated key and upper-case hex; refuses any other key and another account with typed errors', () => {
    expect(client.notifications.verify(signed(base, OLD)).outcome).toBe('approved');
    const upper = signed(base);
    expect(client.notifications.verify({ ...upper, encryption_data: upper.encryption_data!.toUpperCase() }).kind).toBe('payment');
    expect(() => client.notifications.verify(signed(base, 'someone-else'))).toThrow(NotificationError);
    expect(() => client.notifications.verify({ ...base, encryption_data: '' })).toThrow(expect.objectContaining({ code: 'ERR_NOTIFICATION_SIGNATURE' }));
    expect(() => client.notifications.verify(signed({ ...base, account_id: '999' }))).toThrow(expect.objectContaining({ code: 'ERR_NOTIFICATION_ACCOUNT' }));
  });

  it('gives one dedupe key per fact: the same notification twice matches, another amount, currency or status does not', () => {
    const key = client.notifications.verify(signed(base)).dedupeKey;
    expect(client.notifications.verify(signed(base)).dedupeKey).toBe(key);
    for (const change of [{ amount: '0.01' }, { currency: 'USD' }, { order_status: '0', payment_status: '5000' }, { webhooks_type: 'capture' }]) {
      expect(client.notifications.verify(signed({ ...base, ...change })).dedupeKey).not.toBe(key);
    }
  });

  it('reads disputes and chargebacks as chargebacks, payouts as payouts', () => {
    expect(client.notifications.verify(signed({ ...base, webhooks_type: 'dispute', chargeback_reason: 'Not received' }))).toMatchObject({ kind: 'dispute', outcome: 'chargeback', chargebackReason: 'Not received' });
    expect(client.notifications.verify(signed({ ...base, webhooks_type: 'chargeback', payment_status: '7000' }))).toMatchObject({ kind: 'dispute', outcome: 'chargeback' });
    expect(client.notifications.verify(signed({ ...base, webhooks_type: 'payout', order_no: '' })).kind).toBe('payout');
  });

  it('lets the unsigned payment_status and webhooks_type refine the signed order_status, never cross it', () => {
    const outcome = (change: Record<string, string>): string => client.notifications.verify(signed({ ...base, ...change })).outcome;
    // Within what order_status says: a refund or chargeback of a taken payment, the capture of an authorisation.
    expect(outcome({ payment_status: '4100' })).toBe('refunded');
    expect(outcome({ webhooks_type: 'chargeback', payment_status: '7000' })).toBe('chargeback');
    expect(outcome({ order_status: '2', payment_status: '3000' })).toBe('approved');
    expect(outcome({ order_status: '3', payment_status: '8000' })).toBe('expired');
    // Across it: money order_status says was not taken, or a refusal of money it says was.
    expect(outcome({ order_status: '0', payment_status: '3000' })).toBe('declined');
    expect(outcome({ order_status: '-4', payment_status: '4100' })).toBe('failed');
    expect(outcome({ order_status: '0', webhooks_type: 'chargeback', payment_status: '7000' })).toBe('declined');
    expect(outcome({ order_status: '-1', payment_status: '2000' })).toBe('pending');
    expect(outcome({ order_status: '1', payment_status: '5000' })).toBe('approved');
    // Without a status it knows, payment_status is all there is.
    expect(outcome({ order_status: '', payment_status: '3000' })).toBe('approved');
  });

  it('returns what it cannot read as unrecognised, with the reason, never as an error', () => {
    expect(client.notifications.verify(signed({ ...base, webhooks_type: 'settlement' }))).toMatchObject({ kind: 'unrecognised', problem: 'unknown webhooks_type "settlement"' });
    expect(client.notifications.verify(signed({ ...base, amount: '8.901' }))).toMatchObject({ kind: 'unrecognised', problem: expect.stringMatching(/amount/) });
    expect(client.notifications.verify(signed({ ...base, order_status: '42', payment_status: '' }))).toMatchObject({ kind: 'unrecognised', problem: expect.stringMatching(/unknown status/) });
    expect(client.notifications.verify(signed({ ...base, card: '4242424242424242' })).maskedCard).toBeNull();
  });
});

describe('notificationDedupeKey', () => {
  it('stays the SHA-256 of the name=value lines keys were stored with, so a redelivery matches an event stored by any version', () => {
    const names = ['webhooks_type', 'order_no', 'transaction_id', 'order_status', 'payment_status', 'amount', 'currency', 'refund_reference_id', 'refund_amount', 'chargeback_reason', 'error_code', 'result_info'];
    const fields = { ...base, order_no: 'Ä-1 ✓' } as Record<string, string>;
    const lines = createHash('sha256');
    for (const name of names) lines.update(`${name}=${fields[name] ?? ''}\n`);
    expect(notificationDedupeKey(fields)).toBe(`notify:${lines.digest('hex')}`);
    expect(notificationDedupeKey({ ...fields, amount: '8.91' })).not.toBe(notificationDedupeKey(fields));
    expect(notificationDedupeKey({ ...fields, payment_status: '4100', refund_reference_id: 'R-1', refund_amount: '1.00' })).toBe('refund:R-1:1.00');
  });
});
