/**
 * Sends a list of prepared requests to a server over `connections` keep-alive connections, each
 * sending its next request once its last is answered (the in-process timers' load:
 * bench/route-cpu.ts, bench/sandbox-cpu.ts). Counts answers of another status than `expected`.
 */
import { Agent, request } from 'node:http';
import type { LoadRequest } from './protocol.js';

export interface KeepAliveSender {
  run(list: readonly LoadRequest[]): Promise<void>;
  /** Answers so far whose status was not the expected one. */
  wrong(): number;
  close(): void;
}

export function keepAliveSender(origin: string, connections: number, expected: number): KeepAliveSender {
  const { hostname, port } = new URL(origin);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let wrong = 0;
  const send = (r: LoadRequest): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request({ agent, hostname, port, method: r.method, path: r.path, headers: r.headers }, (res) => {
        if (res.statusCode !== expected) wrong++;
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(r.body);
    });
  return {
    async run(list) {
      let next = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (next < list.length) {
            const r = list[next++];
            if (r !== undefined) await send(r);
          }
        }),
      );
    },
    wrong: () => wrong,
    close: () => {
      agent.destroy();
    },
  };
}
