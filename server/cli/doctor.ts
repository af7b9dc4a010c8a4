/**
 * `acquiring-checkout-kit doctor`: checks a shop's configuration against a real or sandbox
 * gateway without paying. Each check is one line with its fix; the exit code is 1 when any fails.
 */
import { randomBytes } from 'node:crypto';
import { resolveKitOptions } from '../checkout/options.js';
import { isLocalHost } from '../checkout/start-checks.js';
import { isKitError, KitError } from '../errors.js';
import { createGatewayClient } from '../gateway/client.js';
import { silentLogger } from '../logging.js';
import type { CheckLine } from './output.js';

export interface DoctorConfig {
  baseUrl: string;
  merchantId: string;
  accountId: string;
  signKey: string;
  publicUrl: string;
  tokenSecret: string | undefined;
  production: boolean;
  timeoutMs: number;
}

const plain = (error: unknown): string => (error instanceof Error ? error.message.replace(/ \[ERR_[A-Z_]+: [^\]]+\]$/, '') : String(error));

function optionsCheck(config: DoctorConfig): CheckLine {
  try {
    resolveKitOptions(
      {
        gateway: { baseUrl: config.baseUrl, merchantId: config.merchantId, accountId: config.accountId, signKey: config.signKey },
        publicUrl: config.publicUrl,
        tokenSecret: config.tokenSecret ?? 'x'.repeat(32),
        store: undefined,
        logger: silentLogger,
      },
      config.production ? { NODE_ENV: 'production' } : {},
    );
  } catch (error) {
    if (isKitError(error) && error.code.startsWith('ERR_CONFIG') && !(config.production && error.code === 'ERR_CONFIG_STORE')) {
      const fix = typeof error.details.fix === 'string' ? error.details.fix : undefined;
      return { name: 'options', status: 'fail', detail: `${error.code}: ${plain(error).replace(/ Fix: .*$/, '')}`, ...(fix === undefined ? {} : { fix }) };
    }
    if (!(isKitError(error) && error.code === 'ERR_CONFIG_STORE')) throw error;
  }
  if (config.tokenSecret === undefined || config.tokenSecret === '') {
    return {
      name: 'options',
      status: config.production ? 'fail' : 'warn',
      detail: 'valid, but CHECKOUT_TOKEN_SECRET is not set (a development secret would be generated; refused in production)',
      fix: "set CHECKOUT_TOKEN_SECRET to `node -e \"console.log(crypto.randomBytes(32).toString('base64url'))\"`",
    };
  }
  return { name: 'options', status: 'ok', detail: `gateway ${config.baseUrl}, account ${config.accountId}, publicUrl ${config.publicUrl}` };
}

/** A signed query for an order that does not exist: the gateway answers it, or refuses the signature (I0013). */
async function signKeyCheck(config: DoctorConfig): Promise<CheckLine> {
  const client = createGatewayClient({ baseUrl: config.baseUrl, merchantId: config.merchantId, accountId: config.accountId, signKey: config.signKey, timeoutMs: config.timeoutMs });
  const orderNo = `DOCTOR-${randomBytes(4).toString('hex')}`;
  try {
    await client.queries.transactions({ orders: [orderNo] });
    return { name: 'sign key', status: 'ok', detail: `the gateway accepted a signed query for account ${config.accountId}` };
  } catch (error) {
    if (!(error instanceof KitError)) throw error;
    switch (error.code) {
      case 'ERR_GATEWAY_BAD_SIGNATURE':
        return { name: 'sign key', status: 'fail', detail: `ERR_GATEWAY_BAD_SIGNATURE: the gateway refused the signature (I0013)`, fix: `check GATEWAY_SIGN_KEY for account ${config.accountId}: it must be the sign_key issued for this account_id` };
      case 'ERR_GATEWAY_NOT_FOUND':
        return { name: 'sign key', status: 'ok', detail: 'the gateway accepted the signed query (no such order, as expected)' };
      case 'ERR_GATEWAY_IP_NOT_ALLOWED':
        return { name: 'sign key', status: 'warn', detail: 'ERR_GATEWAY_IP_NOT_ALLOWED: queries are refused from this IP, so the key could not be checked', fix: "add this machine's outbound IP to the account's allowlist, or run doctor from the shop's server" };
      case 'ERR_GATEWAY_TEST_ACCOUNT_ON_LIVE':
      case 'ERR_GATEWAY_LIVE_ACCOUNT_ON_TEST':
        return { name: 'sign key', status: 'fail', detail: `${error.code}: account ${config.accountId} does not belong to ${config.baseUrl}`, fix: 'use the base URL that matches the account (test or live)' };
      case 'ERR_TRANSPORT_CONNECTION':
      case 'ERR_TRANSPORT_TIMEOUT':
        return { name: 'sign key', status: 'fail', detail: `${error.code}: no answer from ${config.baseUrl}`, fix: 'check GATEWAY_BASE_URL (for the sandbox: `npx acquiring-checkout-kit sandbox`, then http://127.0.0.1:4000)' };
      default:
        return { name: 'sign key', status: 'fail', detail: `${error.code}: ${plain(error)}`, fix: 'see docs/errors.md for this code' };
    }
  } finally {
    client.close();
  }
}

/** As far as can be told from here: https, a public host, and the router answering where publicUrl says. */
async function reachabilityChecks(config: DoctorConfig): Promise<CheckLine[]> {
  let url: URL;
  try {
    url = new URL(config.publicUrl);
  } catch {
    return [{ name: 'notify and return URLs', status: 'skip', detail: 'publicUrl is not an absolute URL (see options)' }];
  }
  const base = config.publicUrl.replace(/\/+$/, '');
  const lines: CheckLine[] = [];
  if (isLocalHost(url.hostname)) {
    lines.push({
      name: 'notify and return URLs',
      status: config.production ? 'fail' : 'warn',
      detail: `${base}/notify is on ${url.hostname}: a local sandbox reaches it, a real gateway cannot`,
      fix: 'in production set publicUrl to the public https address of the shop',
    });
  } else if (url.protocol !== 'https:') {
    lines.push({ name: 'notify and return URLs', status: config.production ? 'fail' : 'warn', detail: `${base} is http: the gateway and browsers need https in production`, fix: 'serve the shop over https and set publicUrl to it' });
  } else {
    lines.push({ name: 'notify and return URLs', status: 'ok', detail: `${base}/notify and ${base}/return/… are https on a public host name` });
  }
  // The notify route refuses a POST without a signature (4xx, not Express's 404): proof the router is mounted there.
  try {
    const response = await fetch(`${base}/notify`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '', signal: AbortSignal.timeout(config.timeoutMs) });
    const text = await response.text();
    if (response.status === 404 && /Cannot POST/i.test(text)) {
      lines.push({ name: 'router mount', status: 'fail', detail: `ERR_CONFIG_PUBLIC_URL: nothing answers at ${base}/notify (404 ${text.trim().slice(0, 80)})`, fix: `mount kit.router at ${url.pathname.replace(/\/+$/, '') || '/'} (app.use('${url.pathname.replace(/\/+$/, '') || '/'}', kit.router)), or set publicUrl to where it is mounted` });
    } else if (response.status >= 400 && response.status < 500 && response.status !== 404) {
      lines.push({ name: 'router mount', status: 'ok', detail: `the kit's router answers at ${base} (HTTP ${String(response.status)} to an unsigned notification, as it should)` });
    } else {
      lines.push({ name: 'router mount', status: 'warn', detail: `${base}/notify answered HTTP ${String(response.status)}, not the kit's router as expected`, fix: 'check that kit.router is mounted at the path of publicUrl and that no proxy rewrites it' });
    }
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : plain(error);
    lines.push({ name: 'router mount', status: 'skip', detail: `could not reach ${base} (${cause})`, fix: 'start the shop, then run doctor again to check where the router is mounted' });
  }
  return lines;
}

export async function runDoctor(config: DoctorConfig): Promise<CheckLine[]> {
  const options = optionsCheck(config);
  if (options.status === 'fail' && options.detail.startsWith('ERR_CONFIG') && !options.detail.includes('tokenSecret')) {
    return [options, { name: 'sign key', status: 'skip', detail: 'options are invalid' }, ...(await reachabilityChecks(config))];
  }
  return [options, await signKeyCheck(config), ...(await reachabilityChecks(config))];
}
