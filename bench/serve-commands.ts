/**
 * The child side of the runner's IPC (bench/children.ts is the parent side): each command's
 * promise answers as a HostReply with the command's id, and id 0 announces `ready`.
 */
import type { HostReply } from './protocol.js';

/** `handle` takes the child's own command type; the parent sends only those (children.ts). */
export function serveCommands(handle: (command: never) => Promise<unknown>, ready: unknown = 'ready'): void {
  process.on('message', (message: { id: number; command: unknown }) => {
    handle(message.command as never).then(
      (value) => process.send?.({ id: message.id, ok: true, value } satisfies HostReply),
      (error: unknown) => process.send?.({ id: message.id, ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) } satisfies HostReply),
    );
  });
  process.send?.({ id: 0, ok: true, value: ready } satisfies HostReply);
}
