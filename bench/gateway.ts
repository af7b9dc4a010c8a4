/**
 * The gateway the shop talks to, in its own process: the sandbox over a ledger file the seeder
 * filled, as a real acquirer runs on machines of its own. Only notify_confirmed keeps the sandbox
 * inside the server under test, as the scenario is defined. Answers the runner's commands over
 * IPC: `open` a directory's ledger and listen, `cpu` (the process's CPU per request since the
 * last ask), `close` it once the scenario is done.
 */
import { subscribe } from 'node:diagnostics_channel';
import { openSandbox } from './open-sandbox.js';
import type { GatewayCommand, GatewayCpu, MemoryResult, OpenedGateway } from './protocol.js';
import { serveCommands } from './serve-commands.js';
import type { Sandbox, SandboxListener } from '../server/sandbox/index.js';

let open: { sandbox: Sandbox; listener: SandboxListener } | null = null;

/**
 * Requests the process's HTTP servers received, counted through node:http's own diagnostics
 * channel: the sandbox's listener serves /v1 without Express, so nothing in it is touched.
 */
let received = 0;
subscribe('http.server.request.start', () => {
  received++;
});
let cpuSince = process.cpuUsage();
let receivedBefore = 0;

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
    case 'cpu': {
      // The runner asks once the shop has had every answer, so no request is in flight here.
      const used = process.cpuUsage(cpuSince);
      const handled = received - receivedBefore;
      cpuSince = process.cpuUsage();
      receivedBefore = received;
      return { cpuUsPerRequest: (used.user + used.system) / handled, requests: handled } satisfies GatewayCpu;
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
