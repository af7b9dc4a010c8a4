/**
 * The sandbox reads every optional payment field from the wire on its own (no client code here):
 * the hand-written requests in test/fixtures/wire/payment-fields.ts are accepted as written, a
 * malformed optional field is refused naming it, and Pix without `person.document_number` is
 * refused as the real method would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../../server/sandbox/index.js';
import { FIXTURE_ACCOUNT } from '../../fixtures/wire/account.js';
import { apmFullPersonRequest, apmWithoutDocumentRequest, directAllFieldsRequest } from '../../fixtures/wire/payment-fields.js';

let sandbox: Sandbox;
let baseUrl: string;
let close: () => Promise<void>;

beforeAll(async () => {
  sandbox = createSandbox({ accounts: [{ ...FIXTURE_ACCOUNT }], env: {}, notifyTimeScale: 0.001 });
  const listener = await sandbox.listen(0);
  baseUrl = listener.baseUrl;
  close = async () => {
    await listener.close();
    await sandbox.close();
  };
});
afterAll(async () => close());

async function authorise(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/v1/authorise`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('sandbox: optional payment fields on the wire', () => {
  it('accepts a direct request with every optional field', async () => {
    const reply = await authorise(directAllFieldsRequest);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).toContain('<order_no>ORD-2001</order_no>');
    expect(reply.text).toContain('<result_info>0000:Success</result_info>');
  });

  it('accepts a Pix request with a full person, bank code, district and street, and sends the shopper to the issuer', async () => {
    const reply = await authorise(apmFullPersonRequest);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.text).toMatch(/<issuer_url>http[^<]+<\/issuer_url>/);
  });

  it('refuses Pix without person.document_number, naming the field', async () => {
    const reply = await authorise(apmWithoutDocumentRequest);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0001', source: 'person.document_number' });
  });

  it('refuses malformed optional fields, naming them', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...directAllFieldsRequest, birth_date: '1990-12-31' }, 'birth_date'],
      [{ ...directAllFieldsRequest, cart_items: [{ basic_item_data: { quantity: 2 } }] }, 'cart_items[0].basic_item_data.quantity'],
      [{ ...apmFullPersonRequest, person: { document_number: '1', phone_country_code: 'BRA' } }, 'person.phone_country_code'],
      [{ ...apmFullPersonRequest, person: { document_number: '1', birth_date: '1990-12-31' } }, 'person.birth_date'],
    ];
    for (const [body, field] of cases) {
      const reply = await authorise(body);
      expect(reply.status, field).toBe(400);
      expect((JSON.parse(reply.text) as { source: string }).source, field).toBe(field);
    }
  });
});
