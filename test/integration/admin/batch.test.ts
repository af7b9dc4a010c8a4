import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminKit } from '../../../server/admin/index.js';
import type { Order } from '../../../server/orders/types.js';
import { StaffSession, startHarness, waitForJob, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function authorisedOrders(n: number, prefix: string): Promise<Order[]> {
  const orders: Order[] = [];
  for (let i = 0; i < n; i++) orders.push(await h.createAuthorised({ amount: 100 + i, prefix }));
  return orders;
}

/** Order numbers in the capture requests sent since `from` (index into h.calls). */
function capturedOrderNos(from: number): string[] {
  return h.calls
    .slice(from)
    .filter((c) => c.path === '/v1/capture')
    .flatMap((c) => (JSON.parse(c.body) as { capture_orders: { order_no: string }[] }).capture_orders.map((o) => o.order_no));
}

function jobIdOf(location: string): string {
  const match = /\/admin\/batch\/([0-9a-f-]{36})/.exec(location);
  if (!match?.[1]) throw new Error(`no job id in ${location}`);
  return match[1];
}

function captureSteps(orderNo: string): number {
  return h.sandbox.ledger.transaction(orderNo)?.history.filter((s) => s.event.startsWith('captured')).length ?? -1;
}

describe('batch jobs', () => {
  it('captures 120 orders ticked in the list in 3 gateway requests, recording each result', async () => {
    const orders = await authorisedOrders(120, 'B120');
    const staff = new StaffSession(h.admin, 'gina');
    await staff.get('/');
    const from = h.calls.length;
    const res = await staff.post('/batch', { action: 'capture', orders: orders.map((o) => o.orderNo) });
    expect(res.status).toBe(303);
    const jobId = jobIdOf(String(res.headers.location));
    const job = await waitForJob(h.adminStore, jobId);

    expect(job).toMatchObject({ action: 'capture', createdBy: 'gina', status: 'done' });
    expect(job.items.map((i) => i.orderNo)).toEqual(orders.map((o) => o.orderNo));
    expect(job.items.every((i) => i.status === 'ok' && i.message === 'now paid')).toBe(true);
    const requests = h.calls.slice(from).filter((c) => c.path === '/v1/capture');
    expect(requests.map((c) => (JSON.parse(c.body) as { capture_orders: unknown[] }).capture_orders.length)).toEqual([50, 50, 20]);
    for (const order of orders) {
      expect((await h.kit.store.get(order.id))?.state).toBe('paid');
      expect(h.sandbox.ledger.transaction(order.orderNo)?.capturedAmount).toBe(order.amount);
    }
    const events = await h.kit.store.listEvents(orders[7]!.id);
    expect(events.find((e) => e.dedupeKey === `job:${jobId}:capture`)).toMatchObject({ type: 'admin_action', actor: 'gina' });
    expect(events.find((e) => e.toState === 'paid')).toMatchObject({ source: 'admin', actor: 'gina' });

    const page = await staff.get(`/batch/${jobId}`);
    expect(page.text).toContain('120 ok');
    expect(page.text).not.toContain('http-equiv="refresh"');
    expect((page.text.match(/data-status="ok"/g) ?? []).length).toBe(120);
    const list = await staff.get('/batch');
    expect(list.text).toContain(jobId.slice(0, 8));
  }, 60_000);

  it('survives a crash midway: resuming settles sent orders by query and never captures twice', async () => {
    const orders = await authorisedOrders(120, 'CRASH');
    // A process that dies right after its second capture request reached the gateway.
    let call = 0;
    const crashing: AdminKit = {
      ...h.kit,
      client: {
        ...h.kit.client,
        batch: {
          ...h.kit.client.batch,
          capture: async (input, options) => {
            const result = await h.kit.client.batch.capture(input, options);
            if (++call === 2) throw new Error('simulated crash after sending the second request');
            return result;
          },
        },
      },
    };
    const first = await h.startAdmin({ kit: crashing, batchConcurrency: 1, resumeOnStart: false });
    const staff = new StaffSession(first, 'hana');
    await staff.get('/');
    const from = h.calls.length;
    const res = await staff.post('/batch', { action: 'capture', orders: orders.map((o) => o.orderNo) });
    const jobId = jobIdOf(String(res.headers.location));
    await first.router.idle();

    const crashed = await h.adminStore.getJob(jobId);
    expect(crashed?.status).toBe('running');
    const statuses = crashed!.items.map((i) => i.status);
    expect(statuses.slice(0, 50).every((s) => s === 'ok')).toBe(true);
    expect(statuses.slice(50, 100).every((s) => s === 'sent')).toBe(true);
    expect(statuses.slice(100).every((s) => s === 'pending')).toBe(true);
    expect(h.sandbox.ledger.transaction(orders[60]!.orderNo)?.capturedAmount).toBe(orders[60]!.amount);
    expect((await h.kit.store.get(orders[60]!.id))?.state).toBe('authorized');
    const stopped = await staff.get(`/batch/${jobId}`);
    expect(stopped.text).toContain('Resume job');

    // A fresh process over the same stores; staff press "resume".
    const second = await h.startAdmin({ resumeOnStart: false });
    const resumer = new StaffSession(second, 'ivan');
    await resumer.get(`/batch/${jobId}`);
    const resumed = await resumer.post(`/batch/${jobId}/resume`);
    expect(resumed.status).toBe(303);
    const job = await waitForJob(h.adminStore, jobId);

    expect(job.items.every((i) => i.status === 'ok')).toBe(true);
    expect(job.items.slice(50, 100).every((i) => i.message?.startsWith('settled by query sync (not re-sent)'))).toBe(true);
    const sent = capturedOrderNos(from);
    expect(sent).toHaveLength(120);
    expect(new Set(sent).size).toBe(120);
    for (const order of orders) {
      expect(captureSteps(order.orderNo)).toBe(1);
      expect(h.sandbox.ledger.transaction(order.orderNo)?.capturedAmount).toBe(order.amount);
      expect((await h.kit.store.get(order.id))?.state).toBe('paid');
      const markers = (await h.kit.store.listEvents(order.id)).filter((e) => e.dedupeKey === `job:${jobId}:capture`);
      expect(markers).toHaveLength(1);
    }
  }, 90_000);

  it('resumes unfinished jobs at start-up; an order whose marker exists is never sent again', async () => {
    const [sentBefore, markedOnly, fresh] = await authorisedOrders(3, 'RESUME');
    const jobId = '00000000-0000-4000-8000-' + Date.now().toString(16).padStart(12, '0').slice(-12);
    await h.adminStore.createJob({ id: jobId, action: 'capture', createdBy: 'jo', orderNos: [sentBefore!.orderNo, markedOnly!.orderNo, fresh!.orderNo] });
    // Crash between marking and recording: both carry the marker, one reached the gateway.
    for (const order of [sentBefore!, markedOnly!]) {
      await h.kit.engine.record(order.id, { type: 'admin_action', source: 'admin', actor: 'jo', dedupeKey: `job:${jobId}:capture` });
    }
    await h.kit.client.batch.capture([{ transaction_id: sentBefore!.transactionId!, order_no: sentBefore!.orderNo, currency: 'USD', amount: sentBefore!.amount }]);
    const from = h.calls.length;

    const restarted = await h.startAdmin();
    const job = await waitForJob(h.adminStore, jobId);
    expect(capturedOrderNos(from)).toEqual([fresh!.orderNo]);
    expect(job.items.map((i) => i.status)).toEqual(['ok', 'failed', 'ok']);
    expect(job.items[1]?.message).toMatch(/^not re-sent/);
    expect((await h.kit.store.get(sentBefore!.id))?.state).toBe('paid');
    expect((await h.kit.store.get(markedOnly!.id))?.state).toBe('authorized');
    expect(h.sandbox.ledger.transaction(markedOnly!.orderNo)?.capturedAmount).toBe(0);
    expect(restarted.router.jobs.isRunning(jobId)).toBe(false);
  }, 30_000);

  it('takes a CSV upload, refunds in full, and reports orders whose state does not allow it', async () => {
    const orders = await authorisedOrders(3, 'CSV');
    const staff = new StaffSession(h.admin);
    await staff.get('/');
    await staff.post(`/orders/${orders[0]!.id}/capture`);
    await staff.get('/');
    await staff.post(`/orders/${orders[1]!.id}/capture`);
    await staff.get('/batch');
    const csv = `\uFEFF${orders[0]!.orderNo}\r\n"${orders[1]!.orderNo}",${orders[2]!.orderNo}\r\n\r\n`;
    const res = await staff.postMultipart('/batch', { action: 'refund' }, { field: 'orders_file', name: 'orders.csv', content: csv });
    expect(res.status).toBe(303);
    const job = await waitForJob(h.adminStore, jobIdOf(String(res.headers.location)));
    expect(job.action).toBe('refund');
    expect(job.items.map((i) => [i.orderNo, i.status])).toEqual([
      [orders[0]!.orderNo, 'ok'], [orders[1]!.orderNo, 'ok'], [orders[2]!.orderNo, 'failed'],
    ]);
    expect(job.items[2]?.message).toMatch(/not possible in state authorized/);
    expect(await h.kit.store.get(orders[0]!.id)).toMatchObject({ state: 'refunded', refundedAmount: orders[0]!.amount });
    expect(h.sandbox.ledger.refunds().filter((r) => r.orderNo === orders[2]!.orderNo)).toHaveLength(0);
  }, 30_000);

  it('refuses a malformed list, an unknown order or more than 1000 orders with 400, creating no job', async () => {
    const [order] = await authorisedOrders(1, 'BAD');
    const staff = new StaffSession(h.admin);
    const jobsBefore = (await h.adminStore.listJobs({ limit: 1000 })).length;
    const tooMany = Array.from({ length: 1001 }, (_, i) => `N${i}`).join('\n');
    const cases: [Record<string, string>, string][] = [
      [{ action: 'capture', orders_text: `${order!.orderNo}\nnot an order` }, 'line 2'],
      [{ action: 'capture', orders_text: `${order!.orderNo}\nNOPE-${Date.now()}` }, 'unknown order numbers'],
      [{ action: 'capture', orders_text: tooMany }, 'at most 1000'],
      [{ action: 'explode', orders_text: order!.orderNo }, 'action'],
      [{ action: 'capture', orders_text: ' \n ' }, 'at least one'],
    ];
    for (const [fields, expected] of cases) {
      await staff.get('/batch');
      const res = await staff.postMultipart('/batch', fields);
      expect(res.status, expected).toBe(400);
      expect(res.text).toContain(expected);
    }
    expect((await h.adminStore.listJobs({ limit: 1000 })).length).toBe(jobsBefore);
    expect((await h.kit.store.get(order!.id))?.state).toBe('authorized');
  });

  it('refreshes the job page while the job runs', async () => {
    const [order] = await authorisedOrders(1, 'SLOW');
    h.sandbox.faults.add({ kind: 'latency', operation: 'capture', orderNo: order!.orderNo, latencyMs: 800, times: 1 });
    const staff = new StaffSession(h.admin);
    await staff.get('/');
    const res = await staff.post('/batch', { action: 'capture', orders: order!.orderNo });
    const jobId = jobIdOf(String(res.headers.location));
    const running = await staff.get(`/batch/${jobId}`);
    // Kept current by the page's script (which may fetch the page), never by a meta refresh (WCAG 2.2.1).
    expect(running.text).not.toContain('http-equiv="refresh"');
    expect(running.text).toContain('data-job-refresh data-refresh-seconds="2"');
    const nonce = /script-src 'nonce-([^']+)'/.exec(String(running.headers['content-security-policy']))?.[1];
    expect(running.text).toContain(`<script src="/admin/assets/admin-job.js" nonce="${nonce ?? 'none'}"></script>`);
    expect(String(running.headers['content-security-policy'])).toContain("connect-src 'self'");
    expect(running.text).toContain(`<a href="/admin/batch/${jobId}">Refresh</a>`);
    expect(running.text).toContain('<p id="job-announce" role="status"></p>');
    const script = await staff.get('/assets/admin-job.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    await waitForJob(h.adminStore, jobId);
    const done = await staff.get(`/batch/${jobId}`);
    expect(done.text).not.toContain('http-equiv="refresh"');
    expect(done.text).not.toContain('data-job-refresh');
    expect(done.text).not.toMatch(/<script/);
    expect(String(done.headers['content-security-policy'])).not.toContain('connect-src');
  });
});
