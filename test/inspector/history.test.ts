// The inspector's history file (cli.md, webhooks listen --inspect: the newest 1,000 deliveries,
// at most 50 MB, read back at start) and the forward target's answer that it keeps (64 KiB).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryFile, MAX_ENTRIES, readHistory } from '../../src/inspector/history.js';
import { openDeliverySender } from '../../src/webhooks/send.js';
import { parseListenAddress } from '../../src/core/listen.js';

interface Entry {
  id: string;
  n: number;
}
const isEntry = (v: unknown): v is Entry => typeof (v as Entry | null)?.id === 'string';

let work: string | undefined;
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  work = undefined;
});

describe('the history file', () => {
  it('holds at most the newest 1,000 entries however many arrive, and reads back the newest', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const history = new HistoryFile<Entry>(file, []);
    await history.start();
    let most = 0;
    for (let n = 1; n <= 1500; n++) {
      await history.append({ id: String(n), n });
      most = Math.max(most, readFileSync(file, 'utf8').split('\n').filter(Boolean).length);
    }
    expect(most).toBeLessThanOrEqual(MAX_ENTRIES);
    const read = await readHistory(file, isEntry);
    expect(read.entries.at(-1)).toEqual({ id: '1500', n: 1500 });
    expect(read.entries.length).toBeGreaterThanOrEqual(900);
    expect(new Set(read.entries.map((e) => e.id)).size).toBe(read.entries.length);
  });

  it('takes the last line of an id as its entry and skips damaged lines', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    writeFileSync(file, '{"id":"1","n":1}\n{"id":"2","n":2}\n{not json\n{"id":"1","n":3}\n');
    const read = await readHistory(file, isEntry);
    expect(read).toEqual({
      entries: [
        { id: '2', n: 2 },
        { id: '1', n: 3 },
      ],
      damaged: 1,
    });
  });
});

describe("the forward target's answer", () => {
  it('keeps its status, headers and the first 64 KiB of its body, and how long it took', async () => {
    const big = 'x'.repeat(100 * 1024);
    const server = createServer((_req, res) => {
      res.writeHead(418, { 'x-app': 'teapot', 'content-type': 'text/plain' });
      res.end(big);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const sender = await openDeliverySender(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`));
      const result = await sender.send({ 'content-type': 'application/json' }, Buffer.from('{}'), new AbortController().signal);
      await sender.close();
      expect(result.status).toBe(418);
      expect(result.headers['x-app']).toBe('teapot');
      expect(result.body.length).toBe(64 * 1024);
      expect(result.bodyTruncated).toBe(true);
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('--inspect [<host:port>]', () => {
  const defaults = { host: '127.0.0.1', port: 8788 };
  it.each([
    [true, { host: '127.0.0.1', port: 8788 }],
    ['127.0.0.1:9000', { host: '127.0.0.1', port: 9000 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['localhost:8790', { host: 'localhost', port: 8790 }],
    ['9001', { host: '127.0.0.1', port: 9001 }],
  ] as const)('reads %j', (value, expected) => {
    expect(parseListenAddress(value, defaults)).toEqual(expected);
  });
  it.each(['', 'a b', '127.0.0.1:99999', 'http://x'])('refuses %j', (value) => {
    expect(typeof parseListenAddress(value, defaults)).toBe('string');
  });
});
