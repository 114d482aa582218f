// The receiver's bounds (docs/webhooks.md): anyone on the machine, and any web page, can POST to
// it. Uploads that never finish are held at most RECEIVER_LIMITS.maxInFlight at once (one more is
// told 503, Retry-After, and its connection closed), and each at most requestTimeoutMs. Before,
// 400 such uploads of 1 MiB took the listener from 64 to 418 MB. Raw sockets: exact bytes.
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, RECEIVER_LIMITS, type RunningReceiver, startWebhookReceiver } from '../../../../src/webhooks/receiver.js';
import { peakRssMb, startRfs, waitFor, type Child } from '../../../inspector/support.js';
import { send, signed } from './support.js';

const SECRET = 'whsec_heldUploadsTestSecret0123456789';
/** One shared buffer: each socket's write holds a reference, not a copy (the test's own memory stays small). */
const ALMOST = Buffer.alloc(MAX_BODY_BYTES - 1, 0x61);

interface Upload {
  socket: Socket;
  /** What the receiver sent back on it. */
  reply: () => string;
  closed: () => boolean;
}

/** A POST of a 1 MiB body that sends all of it but its last byte, and never finishes. */
function holdUpload(port: number): Upload {
  const socket = connect({ host: '127.0.0.1', port });
  let reply = '';
  let closed = false;
  socket.on('data', (c: Buffer) => {
    reply += c.toString('latin1');
  });
  socket.on('error', () => undefined); // a reset after a 503 is the server closing it
  socket.on('close', () => {
    closed = true;
  });
  socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/plain\r\nContent-Length: ${MAX_BODY_BYTES}\r\n\r\n`);
  socket.write(ALMOST);
  return { socket, reply: () => reply, closed: () => closed };
}

const running: RunningReceiver[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe('the receiver under uploads that never finish (in process)', () => {
  it('holds at most maxInFlight: one more is told 503 with Retry-After and closed; a delivery goes through once they end', async () => {
    const r = await startWebhookReceiver({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      toleranceSeconds: 300,
      onDelivery: () => undefined,
      limits: { maxInFlight: 4 },
    });
    running.push(r);
    const held = Array.from({ length: 4 }, () => holdUpload(r.port));
    sockets.push(...held.map((u) => u.socket));
    // The fifth, a small whole POST, once the four are in flight (a 401 until then: it is no delivery).
    const busy = await waitFor('a 503 while four uploads are held', async () => {
      const reply = await send(`${r.url}/`, { body: 'x', headers: { 'content-type': 'text/plain' } });
      return reply.status === 503 ? reply : undefined;
    });
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.headers.connection).toBe('close');
    expect(held.every((u) => u.reply() === '' && !u.closed())).toBe(true);
    // A held upload of its own past the cap: answered 503 at once, its connection closed.
    const extra = holdUpload(r.port);
    sockets.push(extra.socket);
    await waitFor('the extra upload closed', () => (extra.closed() ? true : undefined));
    expect(extra.reply()).toMatch(/^HTTP\/1\.1 503 /);
    // The held ones end (their last byte): the receiver takes deliveries again.
    for (const u of held) u.socket.end('a');
    await waitFor('the held uploads answered', () => (held.every((u) => u.reply().startsWith('HTTP/1.1 401')) ? true : undefined));
    const body = '{"id":"dlv_after"}';
    const now = Math.floor(Date.now() / 1000);
    const ok = await send(`${r.url}/`, {
      body,
      headers: { 'content-type': 'application/json', 'x-service-timestamp': String(now), 'x-service-signature': signed(SECRET, now, body) },
    });
    expect(ok.status).toBe(200);
  });

  it('answers 408 and closes an upload that has not arrived within requestTimeoutMs', async () => {
    const r = await startWebhookReceiver({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      toleranceSeconds: 300,
      onDelivery: () => undefined,
      limits: { requestTimeoutMs: 400, headersTimeoutMs: 400 },
    });
    running.push(r);
    const slow = holdUpload(r.port);
    sockets.push(slow.socket);
    await waitFor('the slow upload closed', () => (slow.closed() ? true : undefined), 10_000);
    expect(slow.reply()).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('rfs webhooks listen under 400 uploads that never finish (a child, its memory)', () => {
  let work: string;
  let listener: (Child & { match: RegExpMatchArray }) | undefined;
  afterAll(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await listener?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(`holds ${RECEIVER_LIMITS.maxInFlight}, tells the rest 503, and stays within a bound of resident memory`, async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-held-uploads-'));
    // Not timed: only a bound of memory, read from /proc (the exact figure: bench/RESULTS.md).
    const env: NodeJS.ProcessEnv = {
      RFS_WEBHOOK_SECRET: SECRET,
      RFS_CONFIG_DIR: join(work, 'config'),
      XDG_STATE_HOME: join(work, 'state'),
    };
    listener = await startRfs(['webhooks', 'listen', '--port', '0', '-o', 'ndjson'], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const port = Number(listener.match[1]);
    const uploads: Upload[] = [];
    for (let i = 0; i < 400; i++) {
      const u = holdUpload(port);
      uploads.push(u);
      sockets.push(u.socket);
    }
    // Each is either held (no answer) or told 503 and closed: wait until all beyond the cap are.
    const refused = await waitFor(
      'every upload past the cap told 503',
      () => {
        const answered = uploads.filter((u) => u.closed());
        return answered.length >= 400 - RECEIVER_LIMITS.maxInFlight ? answered : undefined;
      },
      60_000,
    );
    const held = uploads.filter((u) => !u.closed());
    expect(held.length).toBe(RECEIVER_LIMITS.maxInFlight);
    expect(held.every((u) => u.reply() === '')).toBe(true);
    // A reset may reach a client before it reads the 503; most read it.
    const told = refused.filter((u) => /^HTTP\/1\.1 503 [\s\S]*retry-after: 1/i.test(u.reply()));
    expect(told.length).toBeGreaterThan(0);
    expect(refused.every((u) => u.reply() === '' || u.reply().startsWith('HTTP/1.1 503 '))).toBe(true);
    const peak = peakRssMb(listener.pid);
    // Before: 418 MB. The cap holds 32 MiB of bodies; a generous bound over the ~70 MB at rest.
    expect(peak).toBeLessThan(250);
  }, 120_000);
});
