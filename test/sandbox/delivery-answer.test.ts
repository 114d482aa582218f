// the delivery worker read a receiver's answer without limit or deadline (a
// receiver that answered 200 and streamed forever pushed 3.8 GB in 15 s). Only the status
// counts (sandbox.md: a 2xx within 10 s is success); the body is read up to a bound, within the
// attempt's deadline, then the connection is closed.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES } from '../../src/sandbox/delivery-http.js';
import { eventually, start, type Harness } from './helpers.js';

interface EndlessReceiver {
  url: string;
  /** Bytes of answer body written to the socket so far. */
  written(): number;
  /** Resolves when the sandbox has closed the connection of the first request. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Answers 200, then writes `chunk` bytes every `everyMs` (0: as fast as the socket takes them) until the connection closes. */
async function endlessReceiver(chunk: number, everyMs: number): Promise<EndlessReceiver> {
  let written = 0;
  let closedNow: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    closedNow = resolve;
  });
  const server: Server = createServer((req, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const data = Buffer.alloc(chunk, 0x61);
    let timer: NodeJS.Timeout | undefined;
    res.on('close', () => {
      clearTimeout(timer);
      closedNow();
    });
    const pump = (): void => {
      if (res.destroyed) return;
      written += data.length;
      const more = res.write(data);
      if (everyMs > 0) timer = setTimeout(pump, everyMs);
      else if (more) setImmediate(pump);
      else res.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    written: () => written,
    closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let h: Harness | undefined;
let receiver: EndlessReceiver | undefined;
afterEach(async () => {
  await h?.close();
  await receiver?.close();
  h = undefined;
  receiver = undefined;
});

async function deliverTo(r: EndlessReceiver, deliveryTimeoutMs: number): Promise<Harness> {
  const harness = await start({ rateLimit: 0, deliveryAttempts: 1, deliveryTimeoutMs });
  const sub = await harness.api('/webhooks', {
    key: harness.keys.admin,
    body: { url: r.url, events: ['recording.completed'] },
    headers: { 'idempotency-key': 'endless-answer-1' },
  });
  expect(sub.status).toBe(201);
  const rec = (await harness.control('/recordings', { title: 'Endless answer', status: 'REVIEW_PENDING' })).json.data.id as string;
  expect((await harness.control(`/recordings/${rec}/status`, { status: 'COMPLETED' })).status).toBe(200);
  return harness;
}

describe("a receiver's answer", () => {
  it('is read up to a bound: an endless 200 is closed after 64 KiB, and the delivery succeeded', async () => {
    receiver = await endlessReceiver(16 * 1024, 0);
    // A deadline far beyond the test: only the size bound can close it.
    h = await deliverTo(receiver, 600_000);
    await receiver.closed;
    // What the sandbox read is at most MAX_ANSWER_BYTES; the rest sat in socket buffers when it closed.
    expect(receiver.written()).toBeLessThan(MAX_ANSWER_BYTES + 16 * 1024 * 1024);
    const harness = h;
    const status = await eventually(async () => {
      const d = (await harness.api('/webhooks/deliveries')).json.data[0];
      return d?.status === 'PENDING' ? undefined : d?.status;
    });
    expect(status).toBe('SUCCEEDED');
  });

  it('is read within the deadline: a 200 that trickles forever is closed when the attempt times out', async () => {
    // 100 bytes every 20 ms: far under the size bound, so only the deadline can close it.
    receiver = await endlessReceiver(100, 20);
    h = await deliverTo(receiver, 500);
    await receiver.closed;
    expect(receiver.written()).toBeLessThan(MAX_ANSWER_BYTES);
  });
});
