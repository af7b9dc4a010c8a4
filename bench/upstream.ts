/**
 * The gateway baseline's upstream, in its own process: a bare node:http server that reads each
 * POST and answers one fixed XML body the size of the sandbox's authorise reply. It stands for
 * the least any gateway can do, so the gateway baseline's rate is the floor of a route that
 * makes one gateway round trip, apart from everything the sandbox itself computes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveCommands } from './serve-commands.js';

/** An approved authorise reply as the sandbox writes it (1 KB). */
export const AUTHORISE_REPLY =
  '<?xml version="1.0" encoding="UTF-8"?><respon>' +
  '<merchant_id>701001</merchant_id><account_id>701001010</account_id><order_no>P-0000001</order_no>' +
  '<amount>25.00</amount><currency>USD</currency><transaction_id>SBX20260131100000K7Q2ZD</transaction_id>' +
  '<order_status>1</order_status><card>424242******4242</card><result_info>0000:Success</result_info>' +
  '<contract_name></contract_name><recurring_id></recurring_id><recurring_deduction_period></recurring_deduction_period>' +
  '<recurring_deduction_time></recurring_deduction_time><note></note><token_id></token_id><connector>SANDBOX</connector>' +
  '<threeds_result></threeds_result><risk_action>ACCEPT</risk_action><risk_score>10</risk_score>' +
  '<risk_reasons><name>card_bin</name><status>ACCEPT</status></risk_reasons>' +
  '<encryption_data>8e1dc8f6b269f0b4d359b8bff7bf72ae5296f8b4cf81f5884ad9e8334e18269a</encryption_data>' +
  '</respon>';
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
