/**
 * The sandbox over a run's ledger file, for the gateway process, the seeder and the scenarios
 * that run the sandbox inside the server under test. Apart from fixture.ts so that a server that
 * talks to the gateway process never loads the sandbox's modules.
 */
import { createSandbox, type Sandbox } from '../server/sandbox/index.js';
import { LedgerStore } from '../server/sandbox/ledger.js';
import type { CaptureMode } from '../server/sandbox/types.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, sandboxFile } from './fixture.js';

/** The sandbox over the ledger file in `dir` (created when missing), not listening yet. */
export function openSandbox(dir: string, captureMode: CaptureMode = 'auto'): { sandbox: Sandbox; ledger: LedgerStore } {
  // The gateway's ledger lives in a file, as a real gateway's data lives outside the shop's
  // process: only SQLite's page cache counts against the server's memory.
  const sandbox = createSandbox({
    accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, captureMode }],
    sqlitePath: sandboxFile(dir),
    env: {},
  });
  const { ledger } = sandbox;
  if (!(ledger instanceof LedgerStore)) throw new Error('the sandbox ledger has no write side');
  return { sandbox, ledger };
}
