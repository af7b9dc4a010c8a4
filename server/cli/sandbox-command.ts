/** `acquiring-checkout-kit sandbox`: the local sandbox gateway, configured by flags or environment. */
import { join } from 'node:path';
import type { Command } from 'commander';
import { consoleLogger } from '../logging.js';
import { TEST_CARDS } from '../sandbox/cards.js';
import { SANDBOX_DEFAULT_ACCOUNT_ID, SANDBOX_DEFAULT_MERCHANT_ID, SANDBOX_DEFAULT_SIGN_KEY } from '../sandbox/options.js';
import { createSandbox } from '../sandbox/sandbox.js';
import { CliError, EXIT } from './output.js';

const CARD_TEXT: Record<string, string> = {
  approve: 'approved',
  challenge: '3-D Secure challenge',
  doNotHonor: 'declined: do not honour',
  insufficientFunds: 'declined: insufficient funds',
  expired: 'declined: expired card',
  review: 'held for review',
  processingError: 'processing error',
};

export function sandboxBanner(baseUrl: string, account: { merchantId: string; accountId: string; signKey: string }, captureMode: string, dataFile: string | undefined): string {
  const cards = Object.entries(TEST_CARDS).map(([number, behaviour]) => `    ${number}  ${CARD_TEXT[behaviour] ?? behaviour}`);
  return [
    `Sandbox gateway on ${baseUrl} (inspector: ${baseUrl}/)`,
    '',
    `  GATEWAY_BASE_URL=${baseUrl}`,
    `  GATEWAY_MERCHANT_ID=${account.merchantId}`,
    `  GATEWAY_ACCOUNT_ID=${account.accountId}`,
    `  GATEWAY_SIGN_KEY=${account.signKey === SANDBOX_DEFAULT_SIGN_KEY ? account.signKey : '(the key you gave)'}`,
    `  capture mode: ${captureMode}; state: ${dataFile ?? 'in memory'}`,
    '',
    '  Test cards (any future expiry, any CVV; other Luhn-valid numbers are approved):',
    ...cards,
    '',
    'Ctrl+C stops it.',
  ].join('\n');
}

interface SandboxFlags {
  port: string;
  host: string;
  signKey: string;
  merchantId: string;
  accountId: string;
  captureMode: string;
  dataDir?: string;
  publicUrl?: string;
  quiet?: boolean;
}

export function addSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run the local sandbox gateway with test cards (no credentials needed)')
    .option('-p, --port <port>', 'port to listen on (env SANDBOX_PORT)', process.env.SANDBOX_PORT ?? '4000')
    .option('--host <host>', 'interface to listen on (env SANDBOX_HOST)', process.env.SANDBOX_HOST ?? '127.0.0.1')
    .option('--sign-key <key>', 'the account\'s sign key (env GATEWAY_SIGN_KEY)', process.env.GATEWAY_SIGN_KEY || SANDBOX_DEFAULT_SIGN_KEY)
    .option('--merchant-id <id>', 'merchant_id (env GATEWAY_MERCHANT_ID)', process.env.GATEWAY_MERCHANT_ID || SANDBOX_DEFAULT_MERCHANT_ID)
    .option('--account-id <id>', 'account_id (env GATEWAY_ACCOUNT_ID)', process.env.GATEWAY_ACCOUNT_ID || SANDBOX_DEFAULT_ACCOUNT_ID)
    .option('--capture-mode <mode>', 'auto (sales) or manual (authorisations to capture) (env SANDBOX_CAPTURE_MODE)', process.env.SANDBOX_CAPTURE_MODE || 'auto')
    .option('--data-dir <dir>', 'keep state in <dir>/sandbox.sqlite across restarts (env SANDBOX_DATA_DIR; default: in memory)', process.env.SANDBOX_DATA_DIR)
    .option('--public-url <url>', 'the sandbox\'s address as browsers reach it, when not http://host:port (env SANDBOX_PUBLIC_URL)', process.env.SANDBOX_PUBLIC_URL)
    .option('-q, --quiet', 'log warnings only')
    .action(async (flags: SandboxFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, not "${flags.port}"`, EXIT.usage);
      if (flags.captureMode !== 'auto' && flags.captureMode !== 'manual') throw new CliError(`--capture-mode must be auto or manual, not "${flags.captureMode}"`, EXIT.usage);
      const captureMode: 'auto' | 'manual' = flags.captureMode;
      const account = { merchantId: flags.merchantId, accountId: flags.accountId, signKey: flags.signKey, captureMode };
      const sqlitePath = flags.dataDir === undefined || flags.dataDir === '' ? undefined : join(flags.dataDir, 'sandbox.sqlite');
      if (sqlitePath !== undefined) (await import('node:fs')).mkdirSync(flags.dataDir ?? '.', { recursive: true });
      const sandbox = createSandbox({
        accounts: [account],
        logger: consoleLogger(flags.quiet === true ? 'warn' : 'info'),
        ...(sqlitePath === undefined ? {} : { sqlitePath }),
        ...(flags.publicUrl === undefined || flags.publicUrl === '' ? {} : { publicBaseUrl: flags.publicUrl }),
      });
      const listener = await sandbox.listen(port, flags.host);
      process.stdout.write(`${sandboxBanner(listener.baseUrl, account, flags.captureMode, sqlitePath)}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          void sandbox.close().then(resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
