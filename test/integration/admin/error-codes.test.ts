/**
 * The kit's errors end in `[ERR_…: docs/errors.md#…]`. Staff read the sentence: the admin sets
 * the code apart in small print (flash, order page events, job results, error pages) instead of
 * printing the raw suffix, and never doubles the code in front of the sentence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorParts } from '../../../server/admin/format.js';
import { startHarness, StaffSession, waitForJob, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** The page without its raw-data disclosures (which show the stored event as it is). */
const readable = (html: string): string => html.replace(/<details class="event-raw">[\s\S]*?<\/details>/g, '');

describe('admin error messages', () => {
  it('splits a kit error into its sentence and its code', () => {
    expect(errorParts('Capture refused by the gateway: refused (HTTP 500) [ERR_GATEWAY_HTTP: docs/errors.md#err_gateway_http].'))
      .toEqual({ text: 'Capture refused by the gateway: refused (HTTP 500).', code: 'ERR_GATEWAY_HTTP' });
    expect(errorParts('Refunded 5.00 EUR')).toEqual({ text: 'Refunded 5.00 EUR', code: null });
  });

  it('a refused action: flash, event sentence and the order page read as sentences, the code in small print', async () => {
    const order = await h.createAuthorised();
    h.sandbox.faults.add({ kind: 'http500', operation: 'capture', orderNo: order.orderNo, times: 5 });
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const page = await staff.follow(await staff.post(`/orders/${order.id}/capture`));
    const flash = /<p class="flash flash-error" role="status">([\s\S]*?)<\/p>/.exec(page.text)?.[1] ?? '';
    expect(flash).toBe(
      `Capture refused by the gateway: capture for order ${order.orderNo} refused by the gateway (HTTP 500).` +
        ' <small class="error-code" title="See docs/errors.md">ERR_GATEWAY_HTTP</small>',
    );
    const sentence = /<p class="event-sentence">([^<]*refused by the gateway[\s\S]*?)<\/p>/.exec(page.text)?.[1] ?? '';
    expect(sentence).toContain('<small class="error-code" title="See docs/errors.md">ERR_GATEWAY_HTTP</small>');
    expect(readable(page.text)).not.toContain('[ERR_');
    expect(readable(page.text)).not.toContain('ERR_GATEWAY_HTTP: ');
  });

  it('a batch job\'s failed order shows the sentence and the code apart', async () => {
    const order = await h.createAuthorised();
    h.sandbox.faults.add({ kind: 'http500', operation: 'capture', orderNo: order.orderNo, times: 5 });
    const staff = new StaffSession(h.admin);
    await staff.get('/batch');
    const started = await staff.post('/batch', { action: 'capture', orders: order.orderNo });
    const jobId = /batch\/([^/?]+)/.exec(String(started.headers.location))?.[1] ?? '';
    await waitForJob(h.adminStore, jobId);
    const job = await staff.get(`/batch/${jobId}`);
    expect(job.text).toContain(`capture for order ${order.orderNo} refused by the gateway (HTTP 500) <small class="error-code" title="See docs/errors.md">ERR_GATEWAY_HTTP</small>`);
    expect(job.text).not.toContain('[ERR_');
  });

  it('an invalid request\'s error page reads as a sentence', async () => {
    const staff = new StaffSession(h.admin);
    const res = await staff.get('/?from=not-a-date');
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('[ERR_');
  });
});
