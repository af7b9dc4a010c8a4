// Run by app-server.test.ts with `node --allow-natives-syntax --import tsx <this>`: serves three
// requests on each kind of server and prints whether consecutive requests and responses, as the
// route sees them, share V8's hidden class (map).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { createAppServer } from '../../../server/http/app-server.js';

// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8 natives syntax is only parsed at run time
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

async function probe(make: (app: Express) => Server): Promise<{ request: boolean; response: boolean }> {
  const app = express();
  const seen: [IncomingMessage, ServerResponse][] = [];
  app.get('/', (req, res) => {
    seen.push([req, res]);
    res.send('ok');
  });
  const server = make(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
  for (let i = 0; i < 3; i++) await (await fetch(url)).text();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  const [, second, third] = seen;
  if (second === undefined || third === undefined) throw new Error('the route did not see three requests');
  return { request: sameMap(second[0], third[0]), response: sameMap(second[1], third[1]) };
}

process.stdout.write(JSON.stringify({ appServer: await probe((app) => createAppServer(app)), plain: await probe((app) => createServer(app)) }));
