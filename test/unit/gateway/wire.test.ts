import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import {
  DEFAULT_JSON_CONTENT_TYPE, encodeBody, OPERATION_ENCODING, OPERATION_PATHS, readWireBody, toFormFields,
} from '../../../server/gateway/wire.js';

describe('wire encoding', () => {
  it('sends JSON under the form content type by default, and a chosen label on request', () => {
    const fields = { merchant_id: '1', capture_orders: [{ transaction_id: 'T' }] };
    expect(encodeBody('capture', fields)).toEqual({ body: JSON.stringify(fields), contentType: 'application/x-www-form-urlencoded' });
    expect(DEFAULT_JSON_CONTENT_TYPE).toBe('application/x-www-form-urlencoded');
    expect(encodeBody('capture', fields, 'application/json').contentType).toBe('application/json');
  });

  it('sends real forms for the reads and multipart for optimise', () => {
    expect(encodeBody('retrievalTrans', { merchant_id: '1', orders: 'A,B' })).toEqual({ body: 'merchant_id=1&orders=A%2CB', contentType: 'application/x-www-form-urlencoded' });
    const multipart = encodeBody('optimise', { amount: '1.00', currency: 'USD' });
    expect(multipart.contentType).toBeNull();
    expect(multipart.body).toBeInstanceOf(FormData);
    expect((multipart.body as FormData).get('amount')).toBe('1.00');
  });

  it('covers every operation with a /v1 path and an encoding', () => {
    for (const op of Object.keys(OPERATION_PATHS) as (keyof typeof OPERATION_PATHS)[]) {
      expect(OPERATION_PATHS[op]).toBe(`/v1/${op}`);
      expect(OPERATION_ENCODING[op]).toMatch(/^(json|form|multipart)$/);
    }
  });

  it('flattens nested values to JSON text for forms', () => {
    expect(toFormFields({ a: 'x', n: 12, nested: { b: [1] }, gone: undefined })).toEqual({ a: 'x', n: '12', nested: '{"b":[1]}' });
  });

  it('reads JSON under a form label, forms and multipart', async () => {
    expect(await readWireBody('{"a":"1"}', 'application/x-www-form-urlencoded')).toEqual({ a: '1' });
    expect(await readWireBody('a=1&b=x%20y', 'application/x-www-form-urlencoded')).toEqual({ a: '1', b: 'x y' });
    const form = new FormData();
    form.append('amount', '1.00');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const raw = new Uint8Array(await request.arrayBuffer());
    expect(await readWireBody(raw, request.headers.get('content-type') ?? '')).toEqual({ amount: '1.00' });
    await expect(readWireBody('{not json', 'application/json')).rejects.toThrow(ValidationError);
  });
});
