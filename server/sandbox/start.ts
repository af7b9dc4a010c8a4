/**
 * `npm run sandbox`: the sandbox gateway alone on SANDBOX_PORT (default 4000). Accounts and
 * capture mode come from the environment (see docs/sandbox.md); state is kept in SANDBOX_SQLITE
 * when set, otherwise in memory.
 */
import { consoleLogger } from '../logging.js';
import { createSandbox } from './sandbox.js';

const port = Number(process.env.SANDBOX_PORT ?? '4000');
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const sqlitePath = process.env.SANDBOX_SQLITE;
const publicBaseUrl = process.env.SANDBOX_PUBLIC_URL;

const sandbox = createSandbox({
  logger: consoleLogger('info'),
  ...(sqlitePath ? { sqlitePath } : {}),
  ...(publicBaseUrl ? { publicBaseUrl } : {}),
});
const listener = await sandbox.listen(port, host);
process.stdout.write(`Sandbox gateway on ${listener.baseUrl} (inspector: ${listener.baseUrl}/)\n`);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
