import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { FaultRegistry } from '../../../server/sandbox/faults.js';

const target = { merchantId: 'm', accountId: 'a', orderNos: ['O-1'] };

describe('fault registry', () => {
  it('applies a rule `times` times, then forgets it', () => {
    const faults = new FaultRegistry();
    faults.add({ kind: 'http500', operation: 'capture', times: 2 });
    expect(faults.takeForRequest('capture', target)).toHaveLength(1);
    expect(faults.takeForRequest('authorise', target)).toHaveLength(0);
    expect(faults.takeForRequest('capture', target)).toHaveLength(1);
    expect(faults.takeForRequest('capture', target)).toHaveLength(0);
    expect(faults.list()).toEqual([]);
  });

  it('matches account and order_no; without times it lasts until cleared', () => {
    const faults = new FaultRegistry();
    faults.add({ kind: 'latency', accountId: 'a', orderNo: 'O-1', latencyMs: 5 });
    expect(faults.takeForRequest('refund', { ...target, accountId: 'b' })).toHaveLength(0);
    expect(faults.takeForRequest('refund', { ...target, orderNos: ['O-2'] })).toHaveLength(0);
    for (let i = 0; i < 5; i++) expect(faults.takeForRequest('refund', target)).toHaveLength(1);
    faults.clear();
    expect(faults.takeForRequest('refund', target)).toHaveLength(0);
  });

  it('keeps dropNotification apart from request faults', () => {
    const faults = new FaultRegistry();
    faults.add({ kind: 'dropNotification', orderNo: 'O-1', times: 1 });
    expect(faults.takeForRequest('authorise', target)).toHaveLength(0);
    expect(faults.takeDropNotification(target)).toBe(true);
    expect(faults.takeDropNotification(target)).toBe(false);
  });

  it('refuses a malformed rule', () => {
    expect(() => new FaultRegistry().add({ kind: 'latency', latencyMs: -1 })).toThrow(ValidationError);
    expect(() => new FaultRegistry().add({ kind: 'explode' } as never)).toThrow();
  });
});
