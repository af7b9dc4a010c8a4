/**
 * Stored-card tokens over the wire, with hand-written sample-shaped requests: issued on an
 * approved payment with token_flag YES, charged with an empty card, declined (order_status 0,
 * result 0014) when unknown or removed through the control API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directRequest, postJsonAsForm, readRespon, startReceiver, startSandbox, type Harness, type Receiver } from './support.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startSandbox();
  receiver = await startReceiver();
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const NO_CARD = { card: '', expiration_month: undefined, expiration_year: undefined, security_code: undefined };

async function authorise(overrides: Record<string, unknown>) {
  const request = directRequest({ notify_url: receiver.url, ...overrides });
  const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', request);
  return { request, reply, respon: reply.status === 200 ? readRespon(reply.text) : null };
}

async function issueToken(card = '4242424242424242'): Promise<string> {
  const { respon } = await authorise({ card, token_flag: 'YES' });
  expect(respon?.order_status).toBe('1');
  return respon?.token_id ?? '';
}

describe('stored-card tokens', () => {
  it('issues no token without token_flag YES, nor for a declined card', async () => {
    expect((await authorise({ token_flag: 'NO' })).respon?.token_id ?? '').toBe('');
    const declined = await authorise({ card: '4000000000000002', token_flag: 'YES' });
    expect(declined.respon?.order_status).toBe('0');
    expect(declined.respon?.token_id ?? '').toBe('');
  });

  it('charges a token without card data or security code, keeping the masked card', async () => {
    const token = await issueToken();
    const { request, respon } = await authorise({ ...NO_CARD, token_id: token });
    expect(respon).toMatchObject({ order_status: '1', result_info: '0000:Success', card: '424242******4242' });
    expect(h.sandbox.ledger.transaction(String(request.order_no))?.tokenId).toBe(token);
  });

  it('a token charged again keeps its own card (another brand here)', async () => {
    const token = await issueToken('5555555555554444');
    expect((await authorise({ ...NO_CARD, token_id: token })).respon).toMatchObject({ order_status: '1', card: '555555******4444' });
  });

  it('declines an unknown token with order_status 0 and result 0014, recorded and notified', async () => {
    const { request, reply, respon } = await authorise({ ...NO_CARD, token_id: 'TK-never-issued' });
    expect(reply.status).toBe(200);
    expect(respon).toMatchObject({ order_status: '0', result_info: '0014:Invalid card token', card: '' });
    const tx = h.sandbox.ledger.transaction(String(request.order_no));
    expect(tx?.paymentStatus).toBe('5000');
  });

  it('declines a token removed through the control API, and the removal is idempotent', async () => {
    const token = await issueToken();
    const removed = await fetch(`${h.baseUrl}/_sandbox/tokens/${encodeURIComponent(token)}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { token: { removedAt: string } }).token.removedAt).toMatch(/^\d{4}-/);
    expect((await fetch(`${h.baseUrl}/_sandbox/tokens/${encodeURIComponent(token)}/remove`, { method: 'POST' })).status).toBe(200);
    const { respon } = await authorise({ ...NO_CARD, token_id: token });
    expect(respon).toMatchObject({ order_status: '0', result_info: '0014:Invalid card token' });
    expect((await fetch(`${h.baseUrl}/_sandbox/tokens/TK-none`, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses a token payment whose security code is malformed with 400 naming it', async () => {
    const token = await issueToken();
    const { reply } = await authorise({ ...NO_CARD, token_id: token, security_code: '12' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ source: 'security_code' });
  });

  it('refuses a request with neither card nor token with 400 naming card', async () => {
    const { reply } = await authorise({ ...NO_CARD, token_id: '' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ source: 'card' });
  });
});
