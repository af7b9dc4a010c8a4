/**
 * The gateway baseline's upstream, in its own process: a bare node:http server that reads each
 * POST and answers one fixed XML body the size of the sandbox's authorise reply. It stands for
 * the least any gateway can do, so the gateway baseline's rate is the floor of a route that
 * makes one gateway round trip, apart from everything the sandbox itself computes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveCommands } from './serve-commands.js';
import { AUTHORISE_REPLY } from './upstream-wire.js';

const REPLY = Buffer.from(AUTHORISE_REPLY);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8', 'content-length': String(REPLY.length) });
    res.end(REPLY);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serveCommands(() => {
    server.close();
    server.closeAllConnections();
    setImmediate(() => process.exit(0));
    return Promise.resolve(null);
  }, { url: `http://127.0.0.1:${String(port)}` });
});
