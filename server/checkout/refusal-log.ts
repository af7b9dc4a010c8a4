/**
 * Gateway refusals only the merchant can fix (a wrong sign key, a test account on the live
 * gateway, an IP not on the allowlist) are logged as errors with the fix, so the developer
 * sees the cause and not just the shopper's "refused" page. One line per kind per minute: a
 * wrong key refuses every payment, and a log line per request would bury everything else.
 */
import { errorDocsLink, type ErrorCode } from '../errors.js';
import type { ResolvedKitOptions } from './options-types.js';

export const REFUSAL_LOG_INTERVAL_MS = 60_000;

type Options = Pick<ResolvedKitOptions, 'gateway' | 'logger'>;

function fixFor(code: string, options: Options): string | undefined {
  const { accountId, merchantId, baseUrl } = options.gateway;
  switch (code) {
    case 'ERR_GATEWAY_BAD_SIGNATURE':
      return `check signKey for account ${accountId} (merchant ${merchantId}) at ${baseUrl}: it must be the sign_key the gateway issued for this account_id (custom gateway.recipes must match the gateway's)`;
    case 'ERR_GATEWAY_TEST_ACCOUNT_ON_LIVE':
    case 'ERR_GATEWAY_LIVE_ACCOUNT_ON_TEST':
      return `account ${accountId} does not belong to ${baseUrl}: use the gateway base URL that matches the account (test or live), or the other account`;
    case 'ERR_GATEWAY_IP_NOT_ALLOWED':
      return `add this server's outbound IP address to the allowlist of account ${accountId} with the gateway`;
    default:
      return undefined;
  }
}

/** Returns a logger of merchant-fixable refusals bound to one kit's options (its own clock per kind). */
export function createRefusalLog(options: Options, now: () => number = Date.now): (code: string, context: Record<string, unknown>) => boolean {
  const last = new Map<string, number>();
  return (code, context) => {
    const fix = fixFor(code, options);
    if (fix === undefined) return false;
    const at = now();
    const previous = last.get(code);
    if (previous !== undefined && at - previous < REFUSAL_LOG_INTERVAL_MS) return false;
    last.set(code, at);
    options.logger.error(
      { ...context, code, fix, docs: errorDocsLink(code as ErrorCode), accountId: options.gateway.accountId },
      `${code}: the gateway refused the request. Fix: ${fix} (logged at most once a minute)`,
    );
    return true;
  };
}

const perKit = new WeakMap<Options, ReturnType<typeof createRefusalLog>>();

/** The refusal log of the kit these options belong to (one clock per kit). */
export function logRefusal(options: Options, code: string, context: Record<string, unknown>): boolean {
  let log = perKit.get(options);
  if (log === undefined) {
    log = createRefusalLog(options);
    perKit.set(options, log);
  }
  return log(code, context);
}
