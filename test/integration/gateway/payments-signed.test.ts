/**
 * signAuthorise / sendAuthorise: the two halves of authorise, so a caller can refuse bad input
 * before it records anything and then send exactly the request it checked.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { xmlReply } from '../../helpers/recording-server.js';
import { clientFor, directInput, jsonOf, signedRespon, useRecordingServer } from './support.js';

const server = useRecordingServer();

const approved = (orderNo: string) =>
  signedRespon({ order_no: orderNo, amount: '26.50', currency: 'USD', transaction_id: 'TX-S1', order_status: '1', result_info: '0000:Success', card: '411111******1111' });

describe('payments.signAuthorise + sendAuthorise', () => {
  it('sends the same signed body authorise sends, and reads the same result', async () => {
    const client = clientFor(server);
    server.reply(xmlReply(approved('SIG-1')));
    const direct = await client.payments.authorise(directInput('SIG-1'));
    server.reply(xmlReply(approved('SIG-1')));
    const signed = client.payments.signAuthorise(directInput('SIG-1'));
    const split = await client.payments.sendAuthorise(signed);
    expect(split).toEqual(direct);
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests.map((r) => jsonOf(r));
    expect(second).toEqual(first);
    expect(signed.wire.encryption_data).toBe(first?.encryption_data);
  });

  it('refuses bad input while signing, naming every field, before anything is sent', () => {
    const client = clientFor(server);
    let error: unknown;
    try {
      client.payments.signAuthorise(directInput('SIG-2', { card: '4242-4242', security_code: '7a' }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.field).sort()).toEqual(['card', 'security_code']);
    expect(server.requests).toHaveLength(0);
  });
});
