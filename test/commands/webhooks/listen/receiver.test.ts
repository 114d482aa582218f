// The receiver module of `rfs webhooks listen` and `rfs sync --listen`, driven over real HTTP on
// 127.0.0.1 port 0 with signatures computed in the test.
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/core/errors.js';
import {
  forwardTarget,
  MAX_BODY_BYTES,
  startWebhookReceiver,
  type ReceivedDelivery,
  type ReceiverOptions,
  type RefusedRequest,
  type RunningReceiver,
} from '../../../../src/webhooks/receiver.js';
import { startReceiver, type Receiver } from '../../../sandbox/helpers.js';
import { accepts, canBind, freePort, hmacHex, send, signed, type Reply } from './support.js';

const SECRET = 'whsec_receiver_unit_secret';
const NOW = 1_700_000_000;
const BODY = JSON.stringify({
  id: 'dlv_unit1',
  event: 'recording.completed',
  data: { id: 'rec_unit1', title: 'Intake call', status: 'COMPLETED' },
});

interface Got {
  delivery: ReceivedDelivery;
  headers: Record<string, unknown>;
  body: Buffer;
}

const running: RunningReceiver[] = [];
const targets: Receiver[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
  await Promise.all(targets.splice(0).map((t) => t.close()));
});

async function receiver(extra: Partial<ReceiverOptions> = {}): Promise<{ r: RunningReceiver; got: Got[]; refused: RefusedRequest[] }> {
  const got: Got[] = [];
  const refused: RefusedRequest[] = [];
  const r = await startWebhookReceiver({
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    toleranceSeconds: 300,
    now: () => NOW * 1000,
    onDelivery: (delivery, raw) => got.push({ delivery, headers: raw.headers, body: raw.body }),
    onRefused: (req) => refused.push(req),
    ...extra,
  });
  running.push(r);
  return { r, got, refused };
}

function headers(timestamp: string | number, signature: string | undefined, more: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-timestamp': String(timestamp),
    ...(signature === undefined ? {} : { 'x-service-signature': signature }),
    'x-service-event': 'recording.completed',
    'x-service-delivery': 'dlv_unit1',
    ...more,
  };
}

const deliver = (url: string, body: string | Buffer = BODY, h = headers(NOW, signed(SECRET, NOW, body))): Promise<Reply> =>
  send(`${url}/hooks`, { headers: h, body });

describe('webhook receiver: verification', () => {
  it('answers 200 to a valid delivery and reports its ids, title and the raw bytes', async () => {
    const { r, got } = await receiver();
    expect(r.url).toBe(`http://127.0.0.1:${r.port}`);
    const reply = await deliver(r.url);
    expect(reply.status).toBe(200);
    expect(got).toHaveLength(1);
    expect(got[0]?.delivery).toEqual({
      deliveryId: 'dlv_unit1',
      event: 'recording.completed',
      recordingId: 'rec_unit1',
      title: 'Intake call',
      valid: true,
      reason: null,
      explanation: 'the signature matches the payload and the timestamp is within the tolerance',
      ageSeconds: 0,
      status: 200,
    });
    expect(got[0]?.body.equals(Buffer.from(BODY))).toBe(true);
    expect(got[0]?.headers['x-service-delivery']).toBe('dlv_unit1');
  });

  it('verifies the raw bytes: a body that is not UTF-8 is valid, and has no recording id', async () => {
    const { r, got } = await receiver();
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x7b]);
    expect((await deliver(r.url, bytes)).status).toBe(200);
    expect(got[0]?.delivery).toMatchObject({ valid: true, recordingId: null, title: null });
    expect(got[0]?.body.equals(bytes)).toBe(true);
  });

  it('answers 401 with the reason when one byte of the body changed', async () => {
    const { r, got } = await receiver();
    const tampered = BODY.replace('Intake', 'Intakf');
    const reply = await deliver(r.url, tampered, headers(NOW, signed(SECRET, NOW, BODY)));
    expect(reply.status).toBe(401);
    expect(reply.text).toBe('invalid signature: mismatch\n');
    expect(got[0]?.delivery).toMatchObject({ valid: false, reason: 'mismatch', status: 401, recordingId: 'rec_unit1', ageSeconds: 0 });
    expect(got[0]?.delivery.explanation).toMatch(/does not match/);
  });

  it('answers 401 stale for a timestamp beyond the tolerance, by the injected clock', async () => {
    const { r, got } = await receiver({ toleranceSeconds: 60 });
    const ts = NOW - 61;
    const reply = await deliver(r.url, BODY, headers(ts, signed(SECRET, ts, BODY)));
    expect(reply.status).toBe(401);
    expect(reply.text).toBe('invalid signature: stale\n');
    expect(got[0]?.delivery).toMatchObject({
      reason: 'stale',
      ageSeconds: 61,
      explanation: 'the timestamp is 61 seconds old; the tolerance is 60 seconds either way',
    });
    // One second younger is inside the tolerance.
    expect((await deliver(r.url, BODY, headers(ts + 1, signed(SECRET, ts + 1, BODY)))).status).toBe(200);
  });

  it('answers 401 missing without a signature header, and says which header', async () => {
    const { r, got } = await receiver();
    const reply = await deliver(r.url, BODY, headers(NOW, undefined));
    expect(reply.status).toBe(401);
    expect(reply.text).toBe('invalid signature: missing\n');
    expect(got[0]?.delivery).toMatchObject({ reason: 'missing', explanation: 'the request has no x-service-signature header' });
  });

  it('answers 401 malformed for a millisecond timestamp and for an empty signature header', async () => {
    const { r, got } = await receiver();
    const ms = `${NOW}000`;
    expect((await deliver(r.url, BODY, headers(ms, signed(SECRET, ms, BODY)))).status).toBe(401);
    expect((await deliver(r.url, BODY, headers(NOW, ''))).status).toBe(401);
    expect(got.map((g) => g.delivery.reason)).toEqual(['malformed', 'malformed']);
    expect(got[0]?.delivery.explanation).toMatch(/the x-service-timestamp header must be whole Unix seconds/);
    expect(got[1]?.delivery.explanation).toMatch(/the x-service-signature header must be sha256= followed by 64 hex digits/);
  });

  it('never shows the expected signature: not in an answer, its headers, or a reported delivery', async () => {
    const { r, got } = await receiver({ toleranceSeconds: 10 });
    const tampered = `${BODY} `;
    const stale = NOW - 3600;
    const cases: [Buffer | string, Record<string, string>, string][] = [
      // [body sent, headers sent, the signature that body and timestamp would need]
      [tampered, headers(NOW, signed(SECRET, NOW, BODY)), hmacHex(SECRET, NOW, tampered)],
      [BODY, headers(NOW, signed('whsec_another_secret', NOW, BODY)), hmacHex(SECRET, NOW, BODY)],
      [BODY, headers(stale, signed(SECRET, stale, BODY)), hmacHex(SECRET, stale, BODY)],
      [BODY, headers(NOW, `sha1=${hmacHex(SECRET, NOW, BODY)}`), hmacHex(SECRET, NOW, BODY)],
    ];
    for (const [body, h, expected] of cases) {
      const reply = await deliver(r.url, body, h);
      expect(reply.status).toBe(401);
      const seen = `${reply.text}${JSON.stringify(reply.headers)}${JSON.stringify(got.at(-1)?.delivery)}`.toLowerCase();
      // Where the sender itself sent the right digest (the stale and sha1= cases) it is in the raw
      // headers given to onDelivery, but never in what the receiver wrote or concluded.
      expect(seen).not.toContain(expected);
      expect(seen).not.toContain(SECRET.toLowerCase());
    }
    expect(got.map((g) => g.delivery.reason)).toEqual(['mismatch', 'mismatch', 'stale', 'malformed']);
  });
});

describe('webhook receiver: requests that are not deliveries', () => {
  it('answers 405 to a GET (and a PUT) with Allow: POST, and reports no delivery', async () => {
    const { r, got, refused } = await receiver();
    const get = await send(`${r.url}/hooks`, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const put = await send(`${r.url}/hooks`, { method: 'PUT', headers: headers(NOW, signed(SECRET, NOW, BODY)), body: BODY });
    expect(put.status).toBe(405);
    expect(got).toEqual([]);
    expect(refused.map((x) => [x.method, x.status])).toEqual([
      ['GET', 405],
      ['PUT', 405],
    ]);
  });

  it('answers 413 to a body declared larger than 1 MiB, once the body is read away unkept', async () => {
    const { r, got, refused } = await receiver();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${r.url}/hooks`,
        { method: 'POST', agent: false, headers: { 'content-length': String(MAX_BODY_BYTES + 1) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(Buffer.alloc(MAX_BODY_BYTES + 1, 0x61));
    });
    expect(status).toBe(413);
    expect(got).toEqual([]);
    expect(refused).toEqual([{ method: 'POST', status: 413, message: `a body larger than ${MAX_BODY_BYTES} bytes` }]);
  });

  it('answers 413 to a chunked body that grows past 1 MiB, and 200 to one of exactly 1 MiB', async () => {
    const { r, got } = await receiver();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${r.url}/hooks`, { method: 'POST', agent: false, headers: headers(NOW, signed(SECRET, NOW, 'x')) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let i = 0; i < 17; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(413);
    expect(got).toEqual([]);

    const full = Buffer.alloc(MAX_BODY_BYTES, 0x62);
    expect((await deliver(r.url, full)).status).toBe(200);
    expect(got[0]?.body.length).toBe(MAX_BODY_BYTES);
  });
});

describe('webhook receiver: --forward-to', () => {
  it('posts the raw body and the x-service-* headers on, and answers with the target status', async () => {
    const target = await startReceiver('/local/hook');
    targets.push(target);
    target.respond(202);
    const { r, got } = await receiver({ forwardTo: target.url });
    const sent = headers(NOW, signed(SECRET, NOW, BODY), { 'user-agent': 'rfs-sandbox', authorization: 'Bearer not-forwarded' });
    expect((await deliver(r.url, BODY, sent)).status).toBe(202);
    const [first] = await target.waitFor(1);
    expect(first?.path).toBe('/local/hook');
    expect(first?.body.equals(Buffer.from(BODY))).toBe(true);
    for (const name of ['x-service-signature', 'x-service-timestamp', 'x-service-event', 'x-service-delivery', 'content-type']) {
      expect(first?.headers[name]).toBe(sent[name]);
    }
    // Only those: nothing else of the incoming request is passed on.
    expect(first?.headers.authorization).toBeUndefined();
    expect(got[0]?.delivery).toMatchObject({ valid: true, status: 202 });

    target.respond(500);
    expect((await deliver(r.url)).status).toBe(500);
    expect(got[1]?.delivery.status).toBe(500);
  });

  it('forwards nothing that failed verification', async () => {
    const target = await startReceiver();
    targets.push(target);
    const { r } = await receiver({ forwardTo: target.url });
    expect((await deliver(r.url, BODY, headers(NOW, signed('whsec_wrong', NOW, BODY)))).status).toBe(401);
    expect((await deliver(r.url)).status).toBe(200);
    await target.waitFor(1);
    expect(target.received).toHaveLength(1);
  });

  it('answers 502 with the reason when the target cannot be reached', async () => {
    const port = await freePort();
    const { r, got } = await receiver({ forwardTo: `http://127.0.0.1:${port}/hook` });
    const reply = await deliver(r.url);
    expect(reply.status).toBe(502);
    expect(reply.text).toMatch(/^could not forward the delivery: .*ECONNREFUSED/);
    expect(got[0]?.delivery).toMatchObject({ valid: true, status: 502, forwardError: expect.stringMatching(/ECONNREFUSED/) });
  });

  it.each([
    ['a public host', 'http://example.com/hook'],
    ['a private address', 'http://10.0.0.5:3000/hook'],
    ['another scheme', 'ftp://127.0.0.1/hook'],
    ['not a URL', 'localhost:3000'],
    ['credentials', 'http://user:pw@127.0.0.1:3000/'],
  ])('refuses %s as a target (UsageError), before listening', async (_what, url) => {
    expect(() => forwardTarget(url)).toThrow(UsageError);
    const port = await freePort();
    await expect(receiver({ port, forwardTo: url })).rejects.toBeInstanceOf(UsageError);
    expect(await accepts(port)).toBe(false);
  });

  it('accepts loopback targets by name, IPv4 and IPv6', () => {
    expect(forwardTarget('http://localhost:3000/hooks')).toBe('http://localhost:3000/hooks');
    expect(forwardTarget('https://127.0.0.2:8443/x')).toBe('https://127.0.0.2:8443/x');
    expect(forwardTarget('http://[::1]:3000')).toBe('http://[::1]:3000/');
  });
});

describe('webhook receiver: lifecycle', () => {
  it('reports the real port when started on port 0', async () => {
    const { r } = await receiver();
    expect(r.port).toBeGreaterThan(0);
    expect(await accepts(r.port)).toBe(true);
  });

  it('closes promptly with a keep-alive connection open, and frees the port', async () => {
    const { r } = await receiver();
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await send(`${r.url}/hooks`, { headers: headers(NOW, signed(SECRET, NOW, BODY)), body: BODY, agent })).status).toBe(200);
      const started = Date.now();
      await r.close();
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      agent.destroy();
    }
    expect(await accepts(r.port)).toBe(false);
    expect(await canBind(r.port)).toBe(true);
    // close() twice is harmless.
    await r.close();
  });

  it('closes promptly while a request is still sending its body, and reports nothing after', async () => {
    const { r, got } = await receiver();
    const req = request(`${r.url}/hooks`, { method: 'POST', agent: false, headers: headers(NOW, signed(SECRET, NOW, BODY)) });
    const failed = new Promise<Error>((resolve) => req.on('error', resolve));
    req.write(BODY.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await r.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await failed).message).toMatch(/socket hang up|ECONNRESET/);
    expect(got).toEqual([]);
    expect(await accepts(r.port)).toBe(false);
  });

  it('refuses a port in use with a UsageError that suggests --port 0', async () => {
    const { r } = await receiver();
    const error = await receiver({ port: r.port }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`cannot listen on 127.0.0.1:${r.port} (EADDRINUSE)`);
    expect((error as UsageError).hint).toBe('--port 0 picks a free port');
  });
});
