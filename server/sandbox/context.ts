/** What every part of the sandbox shares: options, accounts, the ledger, the notifier, faults. */
import type { SandboxClock } from './clock.js';
import type { FaultRegistry } from './faults.js';
import { accountKey, type LedgerStore } from './ledger.js';
import type { Notifier } from './notifier.js';
import type { ResolvedSandboxOptions } from './options.js';
import type { SandboxAccount } from './types.js';

export interface SandboxContext {
  options: ResolvedSandboxOptions;
  ledger: LedgerStore;
  notifier: Notifier;
  faults: FaultRegistry;
  accounts: ReadonlyMap<string, SandboxAccount>;
  /** The subscription schedule's clock (real time plus what tests advanced it by). */
  clock: SandboxClock;
}

export function findAccount(ctx: SandboxContext, merchantId: string, accountId: string): SandboxAccount | undefined {
  return ctx.accounts.get(accountKey(merchantId, accountId));
}

/**
 * What handlers read from an HTTP request besides its body. An Express request is one; the /v1
 * operations served without Express (sandbox.listen) get an equivalent view of the node request.
 */
export interface RequestInfo {
  readonly protocol: string;
  /** The mount path ('' unless the app is mounted inside another). */
  readonly baseUrl: string;
  readonly socket: { readonly remoteAddress?: string | undefined };
  get(name: 'host' | 'accept-language'): string | undefined;
}

/**
 * The address pages and issuer_url use: `publicBaseUrl` when configured, otherwise the address
 * this request reached (which includes the mount path when the app is mounted).
 */
export function baseUrlOf(ctx: SandboxContext, req: RequestInfo): string {
  if (ctx.options.publicBaseUrl !== undefined) return ctx.options.publicBaseUrl;
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
}
