/**
 * The gateway the shop talks to, in its own process: the sandbox over a ledger file the seeder
 * filled, as a real acquirer runs on machines of its own. Only notify_confirmed keeps the sandbox
 * inside the server under test, as the scenario is defined. Answers the runner's commands over
 * IPC: `open` a directory's ledger and listen, `close` it once the scenario is done.
 */
import { openSandbox } from './fixture.js';
import type { GatewayCommand, MemoryResult, OpenedGateway } from './protocol.js';
import { serveCommands } from './serve-commands.js';
import type { Sandbox, SandboxListener } from '../server/sandbox/index.js';

let open: { sandbox: Sandbox; listener: SandboxListener } | null = null;

async function close(): Promise<void> {
  if (open === null) return;
  const { sandbox, listener } = open;
  open = null;
  await listener.close();
  await sandbox.close();
}

async function handle(command: GatewayCommand): Promise<unknown> {
  switch (command.cmd) {
    case 'open': {
      await close();
      const { sandbox } = openSandbox(command.dir, command.captureMode);
      // The pay route alone: each payment's notification is another request, measured by the
      // notify scenarios, so the sandbox records it as dropped instead of sending it.
      if (command.dropNotifications) sandbox.faults.add({ kind: 'dropNotification' });
      const listener = await sandbox.listen(0);
      open = { sandbox, listener };
      return { url: listener.baseUrl } satisfies OpenedGateway;
    }
    case 'close':
      await close();
      return null;
    case 'memory':
      return { rssPeakMb: process.resourceUsage().maxRSS / 1024, rssNowMb: process.memoryUsage.rss() / (1024 * 1024), heapTotalMb: process.memoryUsage().heapTotal / (1024 * 1024), liveHeapMb: null } satisfies MemoryResult;
    case 'exit':
      await close();
      setImmediate(() => process.exit(0));
      return null;
  }
}

serveCommands(handle);
