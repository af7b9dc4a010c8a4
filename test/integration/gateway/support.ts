/**
 * Shared fixtures for the gateway client's integration tests: keys, the signature formula
 * written out with node:crypto (independent of the client's own signing code), a client pointed
 * at a recording server, and a direct payment input carrying card data.
 */
import { createHash } from 'node:crypto';
import { createGatewayClient, type GatewayClient, type GatewayClientOptions } from '../../../server/gateway/client.js';
import type { DirectPaymentInput } from '../../../server/gateway/operations/payment-inputs.js';
import { buildResponXml } from '../../../server/gateway/xml.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '../../helpers/recording-server.js';

export const MID = '701001';
export const AID = '701001010';
export const KEY = 'Test-Sign-Key-1';

export const sha = (values: readonly string[], key = KEY): string =>
  createHash('sha256').update(values.map((v) => v.replace(/\s+/g, '')).join('') + key).digest('hex');

export function clientFor(server: RecordingServer, options: Partial<GatewayClientOptions> = {}): GatewayClient {
  return createGatewayClient({
    baseUrl: `${server.url}/`,
    merchantId: MID,
    accountId: AID,
    signKey: KEY,
    readRetries: { attempts: 3, baseDelayMs: 1 },
    ...options,
  });
}

export const PAN = '4111111111111111';
export const CVV = '9173';
export const EXP_MONTH = '07';
export const EXP_YEAR = '2039';

export function directInput(orderNo: string, overrides: Partial<DirectPaymentInput> = {}): DirectPaymentInput {
  return {
    order_no: orderNo,
    currency: 'USD',
    amount: 2650,
    items: [
      { name: 'Blue mug', sku: 'MUG-1', unitPrice: 1250, quantity: 2 },
      { name: 'Shipping box', sku: 'BOX', unitPrice: 150, quantity: 1 },
    ],
    website: 'shop.example',
    shopper_id: 'shopper-1',
    shopper_email: 'shopper@example.com',
    shopper_ip: '203.0.113.9',
    card: PAN,
    expiration_month: EXP_MONTH,
    expiration_year: EXP_YEAR,
    security_code: CVV,
    first_name: 'Ada',
    last_name: 'Lovelace',
    billing_country: 'GB',
    open3d: 'do3DS',
    user_agent: 'Mozilla/5.0',
    ...overrides,
  };
}

export interface ResponFields {
  order_no: string;
  amount?: string;
  currency?: string;
  transaction_id?: string;
  order_status?: string;
  [key: string]: string | { name: string; status: string }[] | undefined;
}

/** A `respon` signed with the authorise-response formula (absent values count as empty). */
export function signedRespon(fields: ResponFields, key = KEY): string {
  const values = [MID, AID, fields.order_no, fields.currency ?? '', fields.amount ?? '', fields.transaction_id ?? '', fields.order_status ?? ''];
  return buildResponXml({ merchant_id: MID, account_id: AID, ...fields, encryption_data: sha(values, key) });
}

export const jsonOf = (request: RecordedRequest | undefined): Record<string, unknown> =>
  JSON.parse(request?.body ?? 'null') as Record<string, unknown>;

export const formOf = (request: RecordedRequest | undefined): Record<string, string> =>
  Object.fromEntries(new URLSearchParams(request?.body ?? ''));

/** A port nothing listens on: taken from a server that is closed again at once. */
export async function closedPortUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  return `http://127.0.0.1:${port}`;
}

/**
 * One recording server for the calling test file: started before its tests, emptied before each,
 * closed after. The returned object stands for it from the moment it has started.
 */
export function useRecordingServer(): RecordingServer {
  let current: RecordingServer | null = null;
  const live = (): RecordingServer => {
    if (current === null) throw new Error('the recording server starts in beforeAll: use it inside a test or hook');
    return current;
  };
  beforeAll(async () => {
    current = await startRecordingServer();
  });
  afterAll(async () => {
    await current?.close();
  });
  beforeEach(() => {
    current?.reset();
  });
  return {
    get url() {
      return live().url;
    },
    get requests() {
      return live().requests;
    },
    reply: (...replies) => {
      live().reply(...replies);
    },
    setFallback: (responder) => {
      live().setFallback(responder);
    },
    waitForRequests: (count, withinMs) => live().waitForRequests(count, withinMs),
    reset: () => {
      live().reset();
    },
    close: () => live().close(),
  };
}
