// The bytes the listener's inspector keeps (docs/inspector.md, Bounds: 40 MiB of bodies and
// answers, counted as the history writes them, the oldest dropped first with a mark that says so),
// on the inspector's record itself, in this process: many edited replays whose app answers as much
// (test/soak/inspector-memory.test.ts does it at 64 KiB through the built rfs), and a restart that
// lists what was listed when the answers pass the history's bytes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ListenSource, type ListenSourceOptions } from '../../src/inspector/listen-source.js';
import { MAX_KEPT_BYTES } from '../../src/inspector/kept-bytes.js';
import { MAX_ENTRIES } from '../../src/inspector/history.js';
import type { ReceivedDelivery, ReceivedRaw } from '../../src/webhooks/receiver.js';
import type { SendResult } from '../../src/webhooks/send.js';
import { sign } from '../../src/shared/signature.js';

const KIB64 = 64 * 1024;

let work: string | undefined;
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  work = undefined;
});

/** The app's answer: 201 and `size` bytes. */
const answer = async (size = KIB64): Promise<SendResult> => ({
  status: 201,
  error: null,
  durationMs: 1,
  headers: { 'content-type': 'application/json' },
  body: Buffer.alloc(size, 'a'),
  bodyTruncated: false,
});

const SECRET = 'whsec_keptBytesTestSecret';
let clock = Date.parse('2026-11-28T10:00:00Z');
const now = () => (clock += 1000);

function options(o: Partial<ListenSourceOptions>): ListenSourceOptions {
  return {
    historyFile: undefined,
    forwardTo: 'http://127.0.0.1:9/hooks',
    forward: async () => answer(),
    secret: () => SECRET,
    receiverUrl: 'http://127.0.0.1:8/',
    now,
    onHistoryError: (error) => {
      throw error;
    },
    ...o,
  };
}

/** A valid delivery as the receiver reports it, forwarded (the app's 64 KiB answer) when `forwarded`. */
async function arrive(source: ListenSource, n: number, forwarded: boolean, title = `t ${n}`): Promise<void> {
  const body = Buffer.from(JSON.stringify({ id: `dlv_${n}`, event: 'recording.completed', data: { id: 'rec_1', title } }));
  const delivery: ReceivedDelivery = {
    deliveryId: `dlv_${n}`,
    event: 'recording.completed',
    recordingId: 'rec_1',
    title: `t ${n}`,
    valid: true,
    reason: null,
    explanation: 'ok',
    ageSeconds: 0,
    status: 201,
    ...(forwarded ? { forwarded: await answer() } : {}),
  };
  // Signed, as a valid delivery is: only what verifies under the listener's secret is re-signed.
  const timestamp = Math.floor(clock / 1000);
  const raw: ReceivedRaw = {
    method: 'POST',
    path: '/',
    headers: {
      'content-type': 'application/json',
      'x-service-delivery': `dlv_${n}`,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': sign(SECRET, timestamp, body),
    },
    body,
  };
  source.add(delivery, raw, 'valid', now());
}

/** The history's entries as a restart reads them: the last line of each id, and the bytes of those lines. */
function lastLines(file: string): { bytes: number; ids: string[] } {
  const byId = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line !== '') byId.set((JSON.parse(line) as { id: string }).id, line);
  return { bytes: [...byId.values()].reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0), ids: [...byId.keys()] };
}

describe('the bytes the inspector keeps', () => {
  it('stays within its bound through 150 deliveries × 25 edited replays, counting exactly what the history holds', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-kept-'));
    const historyFile = join(work, 'h.jsonl');
    const limit = 3 * 1024 * 1024;
    const size = 16 * 1024;
    const source = await ListenSource.open(options({ historyFile, maxKeptBytes: limit, forward: () => answer(size) }));
    let most = 0;
    for (let n = 1; n <= 150; n++) {
      await arrive(source, n, true);
      const id = source.list()[0]?.id as string;
      for (let r = 0; r < 25; r++) {
        await source.replay(id, true, Buffer.alloc(size, String.fromCharCode(97 + (r % 26))));
        most = Math.max(most, source.bytes);
      }
    }
    expect(most).toBeLessThanOrEqual(limit);
    // Without the bound it would be 150 × 20 kept exchanges of 2 × 16 KiB as base64: about 13 MB.
    expect(most).toBeGreaterThan(limit * 0.8);
    await source.close();
    // A restart reads the entries and their replays' lines back, within the same bound, and
    // writes the file anew as entry lines: what is counted is what those lines hold, byte for byte.
    const again = await ListenSource.open(options({ historyFile, maxKeptBytes: limit, forward: () => answer(size) }));
    expect(again.bytes).toBeLessThanOrEqual(limit);
    expect(again.list().map((s) => s.id)).toEqual(source.list().map((s) => s.id));
    await again.close();
    expect(lastLines(historyFile).bytes).toBe(again.bytes);

    // Every delivery is still listed; the oldest exchanges lost their bodies first, each marked.
    expect(source.list().length).toBe(150);
    const newest = source.detail(source.list()[0]?.id as string);
    const oldest = source.detail(source.list().at(-1)?.id as string);
    expect(newest?.exchanges.at(-1)).toMatchObject({ dropped: false, label: 'replay edited, re-signed' });
    expect(newest?.exchanges.at(-1)?.response.body?.length).toBe(size);
    expect(oldest?.exchanges.length).toBe(20);
    for (const e of oldest?.exchanges ?? []) expect(e).toMatchObject({ dropped: true, request: { body: null }, response: { body: '' } });
    // A delivery whose exchanges lost their bodies keeps its own: it can still be replayed.
    expect(oldest?.replayable).toBe(true);
    expect(oldest?.request.bodyDropped).toBe(false);
  }, 60_000);

  it('drops the oldest exchanges, then the oldest bodies, when bodies alone do not bring it within the bound', async () => {
    // A bound so small that the answers' headers and the deliveries' bodies (2 KB titles) must go too.
    const source = await ListenSource.open(options({ maxKeptBytes: 64 * 1024 }));
    for (let n = 1; n <= 60; n++) await arrive(source, n, true, 't'.repeat(2000));
    expect(source.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(source.list().length).toBe(60);
    const oldest = source.detail(source.list().at(-1)?.id as string);
    expect(oldest).toMatchObject({ exchanges: [], exchangesDropped: 1, replayable: false, request: { body: '', bodyDropped: true } });
    expect(oldest?.request.bodyBytes).toBeGreaterThan(2000);
    await expect(source.replay(oldest?.id as string, true)).rejects.toThrow(/was dropped to keep the inspector within its memory bound/);
    expect(() => source.body(oldest?.id as string)).toThrow(/was dropped/);
    // The newest keeps its body: it is replayed still.
    const newest = source.detail(source.list()[0]?.id as string);
    expect(newest).toMatchObject({ replayable: true, request: { bodyDropped: false } });
    await expect(source.replay(newest?.id as string, true)).resolves.toMatchObject({ response: { status: 201 } });
  });

  it('lists after a restart the 1,000 deliveries listed before, though their answers pass what the history file keeps', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-kept-'));
    const historyFile = join(work, 'h.jsonl');
    const source = await ListenSource.open(options({ historyFile }));
    // 1,000 answers of 64 KiB: 87 MB as base64, past the history's 50 MB.
    for (let n = 1; n <= MAX_ENTRIES; n++) await arrive(source, n, true);
    const before = source.list().map((s) => s.id);
    expect(before.length).toBe(MAX_ENTRIES);
    expect(source.bytes).toBeLessThanOrEqual(MAX_KEPT_BYTES);
    await source.close();
    const again = await ListenSource.open(options({ historyFile }));
    expect(again.list().map((s) => s.id)).toEqual(before);
    await again.close();
  }, 60_000);
});
