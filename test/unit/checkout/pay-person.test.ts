/**
 * The pay form's payer fields: required and checked only for a method that needs them (Pix,
 * boleto), ignored for any other; the APM body then carries the payer in the kit's terms.
 */
import { describe, expect, it } from 'vitest';
import { parsePayBody } from '../../../server/checkout/pay/schema.js';

describe('pay form: payer data for Pix and boleto', () => {
  it('Pix without a document: the type and number are asked for', () => {
    const result = parsePayBody({ method: 'apm', payment_method: 'PIX' });
    expect(result).toEqual({ ok: false, errors: { person_document_type: 'Choose the document type', person_document_number: 'Enter the document number' } });
  });

  it('a number of the wrong length for its type, a bad date or phone: each named', () => {
    const result = parsePayBody({
      method: 'apm', payment_method: 'boleto', person_document_type: 'CNPJ', person_document_number: '123.456.789-09',
      person_birth_date: '1990-02-30', person_phone: '12',
    });
    expect(result.ok).toBe(false);
    expect(Object.keys(result.ok ? {} : result.errors).sort()).toEqual(['person_birth_date', 'person_document_number', 'person_phone']);
  });

  it('a valid CPF becomes the payer: digits only, birth date and phone kept', () => {
    const result = parsePayBody({
      method: 'apm', payment_method: 'PIX', person_document_type: 'CPF', person_document_number: '123.456.789-09',
      person_birth_date: '1990-12-31', person_phone: '+55 (11) 91234-5678',
    });
    expect(result).toEqual({
      ok: true,
      body: { method: 'apm', payment_method: 'PIX', person: { documentType: 'CPF', documentNumber: '12345678909', birthDate: '1990-12-31', phone: { number: '5511912345678' } } },
    });
  });

  it('another method ignores the payer fields, whatever they hold', () => {
    const result = parsePayBody({ method: 'apm', payment_method: 'IDEAL', person_document_number: 'x', person_birth_date: 'soon' });
    expect(result).toEqual({ ok: true, body: { method: 'apm', payment_method: 'IDEAL' } });
  });
});
