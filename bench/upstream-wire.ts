/**
 * Both ends of the bench's bare upstream (bench/upstream.ts): the fixed reply it sends, and the
 * keep-alive POST the gateway baseline (and pay_direct's store part) makes to it.
 */
import { request, type Agent } from 'node:http';

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

/** POSTs `body` to the upstream's authorise path over `agent`; resolves with its answer's text. */
export function upstreamCall(agent: Agent, url: URL, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, hostname: url.hostname, port: url.port, path: '/v1/authorise', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve(text);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
