import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookPayload } from '../../src/shared/schemas.js';
import { eventually, fakeDns, start, startReceiver, type Harness, type Receiver } from './helpers.js';

// The test's own signature check, independent of src/shared/signature.ts.
function verify(secret: string, timestamp: string, body: Buffer, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

let h: Harness;
let receiver: Receiver;
let resolveTo: string[] = ['127.0.0.1'];
let n = 0;
const logs: string[] = [];

beforeEach(async () => {
  receiver = await startReceiver('/hook', { checkDeliveries: true });
  resolveTo = ['127.0.0.1'];
  logs.length = 0;
  h = await start({
    rateLimit: 0,
    deliveryAttempts: 3,
    deliveryBackoffMs: 30,
    deliveryTimeoutMs: 300,
    log: (line) => logs.push(line),
    resolveHost: async (host) => (host === 'hooks.test' ? resolveTo : fakeDns()(host)),
  });
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

async function subscribe(url = receiver.url, key = h.keys.admin): Promise<{ id: string; secret: string }> {
  const res = await h.api('/webhooks', {
    key,
    body: { url, events: ['recording.completed'] },
    headers: { 'idempotency-key': `deliv-${++n}-key` },
  });
  expect(res.status).toBe(201);
  return res.json.data;
}

async function complete(workspace = 'main'): Promise<string> {
  const created = await h.control('/recordings', { workspace, title: 'Delivery test', status: 'REVIEW_PENDING' });
  expect(created.status).toBe(201);
  const id = created.json.data.id as string;
  expect((await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' })).status).toBe(200);
  return id;
}

/**
 * Waits until the delivery worker has attempted what was scheduled before now, in place of a
 * sleep before asserting that something did not happen: a recording completed now in another
 * workspace, for a subscription of its own, is attempted after them (the worker's timers of
 * equal delay run in order).
 */
async function settled(workspace: 'main' | 'other', key: string): Promise<void> {
  const sentinel = await startReceiver('/sentinel');
  try {
    await subscribe(sentinel.url, key);
    await complete(workspace);
    await sentinel.waitFor(1);
  } finally {
    await sentinel.close();
  }
}

const deliveries = async (query = '', key = h.keys.admin) => (await h.api(`/webhooks/deliveries${query}`, { key })).json;

describe('deliveries', () => {
  it('POSTs a signed recording.completed payload to the subscription', async () => {
    const sub = await subscribe();
    const recordingId = await complete();
    const [got] = await receiver.waitFor(1);
    if (!got) throw new Error('no delivery');
    const ts = got.headers['x-service-timestamp'] as string;
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-service-event']).toBe('recording.completed');
    expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(10);
    expect(verify(sub.secret, ts, got.body, got.headers['x-service-signature'] as string)).toBe(true);
    expect(verify('whsec_wrong', ts, got.body, got.headers['x-service-signature'] as string)).toBe(false);
    const payload = JSON.parse(got.body.toString('utf8'));
    expect(WebhookPayload.safeParse(payload).success).toBe(true);
    expect(payload.id).toBe(got.headers['x-service-delivery']);
    expect(payload.id).toMatch(/^dlv_/);
    expect(payload.event).toBe('recording.completed');
    expect(payload.data).toMatchObject({
      id: recordingId,
      title: 'Delivery test',
      status: 'COMPLETED',
      syncCount: 0,
      lastSyncedAt: null,
      apiUrl: `/api/v1/recordings/${recordingId}`,
    });
    // The apiUrl really is the detail endpoint.
    const detail = await fetch(`${h.base}${payload.data.apiUrl}`, { headers: { authorization: `Bearer ${h.keys.admin}` } });
    expect(detail.status).toBe(200);

    const listed = await eventually(async () => {
      const body = await deliveries();
      return body.data[0]?.status === 'SUCCEEDED' ? body : undefined;
    });
    expect(listed.meta).toEqual({ count: 1, limit: 50 });
    expect(listed.data[0]).toEqual({
      id: payload.id,
      subscriptionId: sub.id,
      event: 'recording.completed',
      recordingId,
      status: 'SUCCEEDED',
      attempts: 1,
      lastAttemptAt: expect.any(String),
      lastResponseStatus: 200,
      lastError: null,
      createdAt: expect.any(String),
    });
    const attempts = (await h.control(`/deliveries/${payload.id}/attempts`)).json.data;
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      attempt: 1,
      url: receiver.url,
      address: '127.0.0.1',
      responseStatus: 200,
      error: null,
      requestBody: got.body.toString('utf8'),
    });
    expect(attempts[0].requestHeaders['x-service-delivery']).toBe(payload.id);
    expect(logs.some((l) => l.includes(payload.id) && l.includes('HTTP 200'))).toBe(true);
    expect(logs.join('\n')).not.toContain(sub.secret);
  });

  it('sends one delivery per subscription and recording, even when the recording completes again', async () => {
    const other = await startReceiver('/second', { checkDeliveries: true });
    try {
      await subscribe();
      await subscribe(other.url);
      const id = await complete();
      await receiver.waitFor(1);
      await other.waitFor(1);
      await h.control(`/recordings/${id}/status`, { status: 'REVIEW_PENDING' });
      await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' });
      await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' });
      await settled('other', h.keys.otherWorkspace);
      expect(receiver.received).toHaveLength(1);
      expect(other.received).toHaveLength(1);
      expect((await deliveries()).data).toHaveLength(2);
    } finally {
      await other.close();
    }
  });

  it('sends nothing to another workspace’s subscriptions', async () => {
    await subscribe(receiver.url, h.keys.otherWorkspace);
    await complete('main');
    await settled('main', h.keys.admin);
    expect(receiver.received).toHaveLength(0);
    expect((await deliveries('', h.keys.otherWorkspace)).data).toEqual([]);
  });

  it('retries a failing receiver, marks the delivery FAILED, and replays it with the same id', async () => {
    receiver.respond(500);
    await subscribe();
    await complete();
    await receiver.waitFor(3);
    const failed = await eventually(async () => {
      const body = await deliveries('?status=FAILED');
      return body.data.length === 1 ? body.data[0] : undefined;
    });
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 3, lastResponseStatus: 500, lastError: 'HTTP 500' });
    await settled('other', h.keys.otherWorkspace);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery']))).toEqual(new Set([failed.id]));

    receiver.respond(204);
    const replay = await h.api(`/webhooks/deliveries/${failed.id}/replay`, { method: 'POST' });
    expect(replay.status).toBe(202);
    expect(replay.json.data).toMatchObject({ id: failed.id, status: 'PENDING' });
    const [, , , fourth] = await receiver.waitFor(4);
    expect(fourth?.headers['x-service-delivery']).toBe(failed.id);
    expect(fourth?.body.equals(receiver.received[0]?.body ?? Buffer.alloc(0))).toBe(true);
    const done = await eventually(async () => {
      const d = (await deliveries()).data[0];
      return d?.status === 'SUCCEEDED' ? d : undefined;
    });
    expect(done).toMatchObject({ id: failed.id, attempts: 4, lastResponseStatus: 204, lastError: null });
    expect((await deliveries('?status=FAILED')).data).toEqual([]);
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const target = await startReceiver('/target');
    try {
      receiver.respond(302, { location: target.url });
      await subscribe();
      await complete();
      const failed = await eventually(async () => (await deliveries('?status=FAILED')).data[0]);
      expect(failed.lastResponseStatus).toBe(302);
      expect(failed.lastError).toContain('redirect');
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('fails an attempt that gets no answer in time', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent = (await import('node:net')).createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await subscribe(`http://127.0.0.1:${port}/hook`);
      await complete();
      const failed = await eventually(async () => (await deliveries('?status=FAILED')).data[0]);
      expect(failed.lastError).toContain('no answer within 300 ms');
      expect(failed.lastResponseStatus).toBeNull();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('checks the URL again before each attempt and connects to the checked address', async () => {
    const url = `http://hooks.test:${receiver.port}/hook`;
    await subscribe(url);
    await complete();
    const [first] = await receiver.waitFor(1);
    expect(first?.headers.host).toBe(`hooks.test:${receiver.port}`);
    // The name now points somewhere private: the next attempts are refused before connecting.
    resolveTo = ['10.0.0.7'];
    receiver.respond(200);
    await complete();
    const failed = await eventually(async () => (await deliveries('?status=FAILED')).data[0]);
    expect(failed.lastError).toMatch(/^URL refused: .*private/);
    expect(receiver.received).toHaveLength(1);
  });

  it('stops pending deliveries when their subscription is deleted', async () => {
    receiver.respond(503);
    const slow = await start({ rateLimit: 0, deliveryAttempts: 5, deliveryBackoffMs: 60_000, resolveHost: fakeDns() });
    try {
      const sub = (
        await slow.api('/webhooks', {
          body: { url: receiver.url, events: ['recording.completed'] },
          headers: { 'idempotency-key': 'delete-stops-it' },
        })
      ).json.data;
      const rec = (await slow.control('/recordings', { status: 'COMPLETED' })).json.data.id as string;
      await receiver.waitFor(1);
      const pending = await eventually(async () => {
        const d = (await slow.api('/webhooks/deliveries')).json.data[0];
        return d?.attempts === 1 ? d : undefined;
      });
      expect(pending).toMatchObject({ status: 'PENDING', recordingId: rec });
      expect((await slow.api(`/webhooks/${sub.id}`, { method: 'DELETE' })).status).toBe(204);
      const stopped = (await slow.api('/webhooks/deliveries')).json.data[0];
      expect(stopped).toMatchObject({ status: 'FAILED', lastError: 'subscription deleted' });
      const replay = await slow.api(`/webhooks/deliveries/${stopped.id}/replay`, { method: 'POST' });
      expect(replay.status).toBe(404);
    } finally {
      await slow.close();
    }
  });

  it('filters and validates the delivery list', async () => {
    const a = await subscribe();
    const b = await subscribe(`http://127.0.0.1:${receiver.port}/b`);
    await complete();
    await complete();
    await receiver.waitFor(4);
    const all = await deliveries();
    expect(all.data).toHaveLength(4);
    // Newest first.
    const created = all.data.map((d: { createdAt: string }) => Date.parse(d.createdAt));
    expect(created).toEqual([...created].sort((x, y) => y - x));
    expect((await deliveries(`?subscriptionId=${a.id}`)).data.every((d: { subscriptionId: string }) => d.subscriptionId === a.id)).toBe(
      true,
    );
    expect((await deliveries(`?subscriptionId=${b.id}`)).data).toHaveLength(2);
    expect((await deliveries('?limit=1')).meta).toEqual({ count: 1, limit: 1 });
    for (const q of ['?status=DONE', '?status=failed', '?limit=51', '?limit=0', '?limit=x', '?cursor=x']) {
      const res = await h.api(`/webhooks/deliveries${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.code).toBe('INVALID_INPUT');
    }
  });

  it('answers 404 when replaying an unknown delivery or another workspace’s', async () => {
    await subscribe();
    await complete();
    const [got] = await receiver.waitFor(1);
    const id = got?.headers['x-service-delivery'] as string;
    expect((await h.api('/webhooks/deliveries/dlv_nope/replay', { method: 'POST' })).status).toBe(404);
    const foreign = await h.api(`/webhooks/deliveries/${id}/replay`, { method: 'POST', key: h.keys.otherWorkspace });
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe('RESOURCE_NOT_FOUND');
    expect((await h.control('/deliveries/dlv_nope/attempts')).status).toBe(404);
  });
});
