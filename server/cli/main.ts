#!/usr/bin/env node
/**
 * The command-line tool: `npx acquiring-checkout-kit <command>`. Exit codes: 0 done, 1 a check
 * or the command failed, 2 wrong usage.
 */
import { Command, CommanderError } from 'commander';
import { runDoctor, type DoctorConfig } from './doctor.js';
import { addNotifyCommand } from './notify-command.js';
import { CliError, EXIT, formatCheck } from './output.js';
import { addSandboxCommand } from './sandbox-command.js';
import { SANDBOX_DEFAULT_ACCOUNT_ID, SANDBOX_DEFAULT_MERCHANT_ID, SANDBOX_DEFAULT_SIGN_KEY } from '../sandbox/options.js';

const env = process.env;

function buildProgram(): Command {
  const program = new Command('acquiring-checkout-kit')
    .description('Checkout kit tools: a local sandbox gateway, a configuration doctor, and notifications on demand.')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', '\nExit codes: 0 done, 1 a check or the command failed, 2 wrong usage.\nDocs: docs/cli.md in the package.');
  program.exitOverride();
  addSandboxCommand(program);

  program
    .command('doctor')
    .description("check a shop's configuration against the gateway (or the sandbox) without paying")
    .option('--gateway <url>', 'the gateway base URL (env GATEWAY_BASE_URL)', env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:4000')
    .option('--merchant-id <id>', 'merchant_id (env GATEWAY_MERCHANT_ID)', env.GATEWAY_MERCHANT_ID ?? SANDBOX_DEFAULT_MERCHANT_ID)
    .option('--account-id <id>', 'account_id (env GATEWAY_ACCOUNT_ID)', env.GATEWAY_ACCOUNT_ID ?? SANDBOX_DEFAULT_ACCOUNT_ID)
    .option('--sign-key <key>', 'the sign key (env GATEWAY_SIGN_KEY)', env.GATEWAY_SIGN_KEY ?? SANDBOX_DEFAULT_SIGN_KEY)
    .option('--public-url <url>', 'where kit.router is mounted (env PUBLIC_URL, + /checkout)', env.CHECKOUT_PUBLIC_URL ?? `${env.PUBLIC_URL ?? `http://localhost:${env.PORT ?? '3000'}`}/checkout`)
    .option('--production', 'judge as NODE_ENV=production does (default: when NODE_ENV is production)', env.NODE_ENV === 'production')
    .option('--timeout <ms>', 'per-request timeout', '10000')
    .action(async (flags: { gateway: string; merchantId: string; accountId: string; signKey: string; publicUrl: string; production: boolean; timeout: string }) => {
      const timeoutMs = Number(flags.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs < 1000) throw new CliError('--timeout must be a whole number of milliseconds of at least 1000', EXIT.usage);
      const config: DoctorConfig = {
        baseUrl: flags.gateway, merchantId: flags.merchantId, accountId: flags.accountId, signKey: flags.signKey,
        publicUrl: flags.publicUrl, tokenSecret: env.CHECKOUT_TOKEN_SECRET, production: flags.production, timeoutMs,
      };
      const lines = await runDoctor(config);
      for (const line of lines) process.stdout.write(`${formatCheck(line)}\n`);
      const failed = lines.filter((l) => l.status === 'fail').length;
      process.stdout.write(failed === 0 ? '\nNo problem found.\n' : `\n${String(failed)} check(s) failed.\n`);
      if (failed > 0) process.exitCode = EXIT.failed;
    });

  addNotifyCommand(program);
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; usage errors were printed by commander.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = EXIT.failed;
  }
}
