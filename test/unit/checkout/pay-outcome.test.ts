import { describe, expect, it } from 'vitest';
import { GatewayError, ProtocolError, TransportError, ValidationError } from '../../../server/errors.js';
import { classifyPayError, surelyRefused } from '../../../server/checkout/pay/submit.js';
import { looksExpired } from '../../../server/checkout/pay/submit.js';
import { createUrlTokens } from '../../../server/checkout/tokens.js';

describe('what a pay error means for the order', () => {
  it('a timeout or reset is an unknown outcome, never a failure', () => {
    const timeout = new TransportError('ERR_TRANSPORT_TIMEOUT', 'no answer', { outcomeUnknown: true });
    expect(classifyPayError(timeout)).toEqual({ kind: 'unknown', attention: null });
  });

  it('only HTTP 400/404 or an I00xx code count as a sure refusal', () => {
    const bad = new GatewayError('ERR_GATEWAY_INVALID_INPUT', 'refused', { httpStatus: 400, gatewayCode: 'I0001', details: { gatewayMessage: 'amount is invalid' } });
    const notFound = new GatewayError('ERR_GATEWAY_NOT_FOUND', 'refused', { httpStatus: 404 });
    const server = new GatewayError('ERR_GATEWAY_HTTP', 'bad gateway', { httpStatus: 502 });
    expect(surelyRefused(bad)).toBe(true);
    expect(surelyRefused(notFound)).toBe(true);
    expect(surelyRefused(server)).toBe(false);
    expect(classifyPayError(bad)).toEqual({ kind: 'refused', code: 'I0001', text: 'amount is invalid' });
    expect(classifyPayError(notFound)).toEqual({ kind: 'refused', code: 'HTTP 404', text: 'ERR_GATEWAY_NOT_FOUND' });
    expect(classifyPayError(server)).toEqual({ kind: 'unknown', attention: null });
  });

  it('an untrusted answer (signature, malformed, unexpected) is unknown and flagged for staff', () => {
    for (const error of [
      new ProtocolError('ERR_PROTOCOL_SIGNATURE', 'bad signature'),
      new ValidationError([{ field: 'amount', message: 'bad' }]),
      new Error('boom'),
    ]) {
      const failure = classifyPayError(error);
      expect(failure.kind).toBe('unknown');
      expect(failure).toHaveProperty('attention', expect.stringContaining('check the payment at the gateway'));
    }
  });
});

describe('expired pay links', () => {
  it('reads an expired pay token as expired and anything else as not valid', () => {
    let now = 1_000_000;
    const tokens = createUrlTokens({ secrets: 'x'.repeat(32), now: () => now });
    const token = tokens.sign('order-1', 'pay', 60_000);
    expect(looksExpired(token, now)).toBe(false);
    now += 61_000;
    expect(tokens.verify(token, 'pay')).toBeNull();
    expect(looksExpired(token, now)).toBe(true);
    expect(looksExpired(tokens.sign('order-1', 'result', 1), now + 10_000)).toBe(false);
    expect(looksExpired('garbage', now)).toBe(false);
  });
});
