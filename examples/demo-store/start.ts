/**
 * `npm start`: the sandbox gateway on SANDBOX_PORT (default 4000) and the demo store on PORT
 * (default 3000), in one process, with orders in SQLite under `data/` (created on first start).
 * Ctrl-C stops both cleanly.
 */
import { consoleLogger, type Logger } from '../../server/index.js';
import { startDemoStore } from './listen.js';
import { DEMO_TEST_CARDS, sampleExpiry } from './test-cards.js';

function portFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`${name} must be a port number from 0 to 65535, not "${raw}".\n`);
    process.exit(1);
  }
  return port;
}

const levels = ['debug', 'info', 'warn', 'error'] as const;
const level = levels.find((l) => l === process.env.LOG_LEVEL) ?? 'info';
const logger: Logger = consoleLogger(level);
const captureMode = process.env.SANDBOX_CAPTURE_MODE === 'manual' ? 'manual' : 'auto';

const running = await startDemoStore({
  port: portFrom('PORT', 3000),
  host: process.env.HOST ?? '127.0.0.1',
  urlHost: process.env.HOST === undefined ? 'localhost' : undefined,
  ...(process.env.PUBLIC_URL ? { publicUrl: process.env.PUBLIC_URL } : {}),
  sandboxPort: portFrom('SANDBOX_PORT', 4000),
  dataDir: process.env.DEMO_DATA_DIR ?? 'data',
  captureMode,
  logger,
});
const { url, store } = running;
const expiry = sampleExpiry();

process.stdout.write(
  [
    '',
    `  Demo store      ${url}`,
    `  Staff admin     ${url}/admin   (user "${store.adminLogin.user}", password "${store.adminLogin.password === 'demo' ? 'demo' : '(DEMO_ADMIN_PASSWORD)'}")`,
    `  Sandbox gateway ${store.gateway.baseUrl}   (inspector: ${store.gateway.baseUrl}/; capture mode ${captureMode})`,
    '',
    `  Test cards (any CVV, expiry ${expiry.month}/${expiry.year}):`,
    ...DEMO_TEST_CARDS.map((c) => `    ${c.display}  ${c.label}`),
    '',
    '  Press Ctrl-C to stop.',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n  ${signal}: stopping the store and the sandbox…\n`);
  running.close().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'demo: shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGINT', () => {
  stop('SIGINT');
});
process.once('SIGTERM', () => {
  stop('SIGTERM');
});
