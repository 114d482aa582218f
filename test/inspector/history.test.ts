// The inspector's history file (cli.md, webhooks listen --inspect: the newest 1,000 deliveries,
// at most 50 MB, read back at start) and the forward target's answer that it keeps (64 KiB).
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HistoryFile,
  HistoryPathError,
  MAX_DEFAULT_HISTORIES,
  MAX_ENTRIES,
  MAX_LINES,
  pruneDefaultHistories,
  readHistory,
} from '../../src/inspector/history.js';
import { isListenEntry, isListenPart, ListenSource, MAX_REFUSED_ENTRIES } from '../../src/inspector/listen-source.js';
import { openDeliverySender } from '../../src/webhooks/send.js';
import { sign } from '../../src/shared/signature.js';
import { SIGNATURE_HEADERS } from '../../src/shared/schemas.js';
import { parseListenAddress } from '../../src/core/listen.js';
import { checkStateFile } from '../../src/core/state-file.js';

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

const good = {
  id: '3',
  at: '2026-01-02T03:04:05.000Z',
  method: 'POST',
  path: '/',
  headers: { 'content-type': 'application/json' },
  bodyBase64: Buffer.from('{}').toString('base64'),
  deliveryId: 'dlv_1',
  event: 'recording.completed',
  recordingId: null,
  title: null,
  verdict: 'valid',
  status: 200,
  explanation: 'ok',
  exchanges: [],
};

function sourceOptions(historyFile: string) {
  return {
    historyFile,
    forwardTo: undefined,
    forward: undefined,
    secret: () => 'whsec_historyTestSecret',
    receiverUrl: 'http://127.0.0.1:9/',
    now: () => Date.parse('2026-11-28T12:00:00Z'),
    onHistoryError: (error: unknown) => {
      throw error;
    },
  };
}

/** A refused delivery as the receiver reports it. */
function arrive(source: ListenSource, deliveryId: string): void {
  source.add(
    {
      deliveryId,
      event: null,
      recordingId: null,
      title: null,
      valid: false,
      reason: 'missing',
      explanation: 'no signature',
      ageSeconds: null,
      status: 401,
    },
    { method: 'POST', path: '/', headers: {}, body: Buffer.from('{}') },
    'missing',
    Date.parse('2026-11-28T12:00:00Z'),
  );
}

describe('refused deliveries have a quota of their own', () => {
  // Any web page can POST text/plain to the receiver (no-cors): 1,100 such POSTs pushed every
  // verified delivery out of the list and the history.
  it(`keeps the newest ${MAX_REFUSED_ENTRIES} refused ones and never lets them push a verified one out, in the list and read back`, async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const first = await ListenSource.open(sourceOptions(file));
    arriveValid(first, 'dlv_valid_1');
    arriveValid(first, 'dlv_valid_2');
    for (let n = 1; n <= 1100; n++) arrive(first, `dlv_refused_${n}`);
    const listed = first.list().map((s) => s.deliveryId);
    const refused = Array.from({ length: MAX_REFUSED_ENTRIES }, (_, i) => `dlv_refused_${1100 - i}`);
    expect(listed).toEqual([...refused, 'dlv_valid_2', 'dlv_valid_1']);
    await first.close();
    const again = await ListenSource.open(sourceOptions(file));
    expect(again.damaged).toBe(0);
    expect(again.list().map((s) => s.deliveryId)).toEqual(listed);
    // Verified ones keep their own bound: the newest MAX_ENTRIES of them.
    for (let n = 3; n <= MAX_ENTRIES + 5; n++) arriveValid(again, `dlv_valid_${n}`);
    const after = again.list();
    expect(after.filter((s) => s.verified).length).toBe(MAX_ENTRIES);
    expect(after.filter((s) => !s.verified).length).toBe(MAX_REFUSED_ENTRIES);
    expect(after.find((s) => s.deliveryId === 'dlv_valid_6')).toBeDefined();
    expect(after.find((s) => s.deliveryId === 'dlv_valid_5')).toBeUndefined();
    await again.close();
    const third = await ListenSource.open(sourceOptions(file));
    expect(third.list().map((s) => s.deliveryId)).toEqual(after.map((s) => s.deliveryId));
    await third.close();
  });
});

describe('the history file', () => {
  it('holds at most 2,000 lines and reads back the newest 1,000 entries however many arrive', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const history = new HistoryFile<Entry>(file, []);
    await history.start();
    let most = 0;
    for (let n = 1; n <= 3500; n++) {
      history.append({ id: String(n), n });
      if (n % 100 === 0) {
        await history.flushed();
        most = Math.max(most, readFileSync(file, 'utf8').split('\n').filter(Boolean).length);
      }
    }
    await history.flushed();
    expect(most).toBeLessThanOrEqual(MAX_LINES);
    const read = await readHistory(file, isEntry);
    expect(read.entries.length).toBe(MAX_ENTRIES);
    expect(read.entries.at(0)).toEqual({ id: '2501', n: 2501 });
    expect(read.entries.at(-1)).toEqual({ id: '3500', n: 3500 });
  });

  it('writes an entry that changes many times at once as few lines: coalesced, the last state kept', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const history = new HistoryFile<Entry>(file, []);
    await history.start();
    const entry = { id: '1', n: 0 };
    for (let n = 1; n <= 300; n++) {
      entry.n = n;
      history.append(entry);
    }
    await history.flushed();
    expect(history.writes).toBeLessThanOrEqual(2);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toEqual(['{"id":"1","n":300}']);
  });

  it('takes the last line of an id as its entry, in the place of its first, and skips damaged lines', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    writeFileSync(file, '{"id":"1","n":1}\n{"id":"2","n":2}\n{not json\n{"id":"1","n":3}\n');
    const read = await readHistory(file, isEntry);
    expect(read).toEqual({
      entries: [
        { id: '1', n: 3 },
        { id: '2', n: 2 },
      ],
      damaged: 1,
    });
  });

  it('reads only the tail of a file grown past its bound (3 GiB, sparse): the newest lines, the cut one not counted as damage', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    // A history's first line, then zeros (sparse) to 3 GiB, then the newest lines.
    writeFileSync(file, '{"id":"1","n":1}\n');
    truncateSync(file, 3 * 1024 ** 3);
    appendFileSync(file, '\n{"id":"7","n":7}\n{"id":"8","n":8}\n');
    const before = process.memoryUsage().rss;
    const read = await readHistory(file, isEntry);
    expect(read.entries).toEqual([
      { id: '7', n: 7 },
      { id: '8', n: 8 },
    ]);
    // The tail begins inside the zeros: that cut line is where the read began, not damage.
    expect(read.damaged).toBe(0);
    expect(process.memoryUsage().rss - before).toBeLessThan(1024 ** 3);
  });

  it('refuses a path that is not a regular file, before reading from it: a folder, a FIFO', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    await expect(readHistory(work, isEntry)).rejects.toBeInstanceOf(HistoryPathError);
    const fifo = join(work, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(readHistory(fifo, isEntry)).rejects.toBeInstanceOf(HistoryPathError);
  });

  // Its entries say which deliveries verified, and those are re-signed: a history someone else
  // could have written (a forged "valid" line) is not read, nor one reached through a link.
  it('refuses a link, a file writable by others, and one another user owns', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'history.jsonl');
    writeFileSync(file, '', { mode: 0o600 });
    await expect(readHistory(file, isEntry)).resolves.toMatchObject({ entries: [] });
    const link = join(work, 'link.jsonl');
    symlinkSync(file, link);
    await expect(readHistory(link, isEntry)).rejects.toThrow(/is a symbolic link/);
    chmodSync(file, 0o666);
    await expect(readHistory(file, isEntry)).rejects.toThrow(/writable by group or others/);
    chmodSync(file, 0o600);
    if (process.geteuid?.() === 0) {
      chownSync(file, 4242, 4242);
      await expect(readHistory(file, isEntry)).rejects.toThrow(/owned by uid 4242/);
    }
  });
});

describe('the history is judged as core/state-file.ts judges a state file, by what was opened', () => {
  it('refuses a history in a folder others may write (0777), as checkStateFile does', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const folder = join(work, 'open');
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    const file = join(folder, 'h.jsonl');
    writeFileSync(file, `${JSON.stringify(good)}\n`, { mode: 0o600 });
    expect(checkStateFile(file)).toMatchObject({ kind: 'refused' });
    await expect(readHistory(file, isEntry)).rejects.toThrow(/its folder .* is writable by group or others/);
    await expect(ListenSource.open(sourceOptions(file))).rejects.toBeInstanceOf(HistoryPathError);
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(good)}\n`);
  });

  it('reads a history in a folder like /tmp (root-owned, 1777 with the sticky bit): no one else may move the file there', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const folder = join(work, 'shared');
    mkdirSync(folder);
    chmodSync(folder, 0o1777);
    const file = join(folder, 'h.jsonl');
    writeFileSync(file, `${JSON.stringify(good)}\n`, { mode: 0o600 });
    chownSync(folder, 0, 0);
    expect(checkStateFile(file)).toMatchObject({ kind: 'own' });
    expect((await readHistory(file, isEntry)).entries.map((e) => e.id)).toEqual([good.id]);
  });

  // The name judged, then opened by name again following links: a link swapped in between was
  // read. Here a process swaps the name between the history and a link to a forged one as fast as
  // it can while the history is read again and again: the forged one is never read.
  it('never reads a forged history swapped in as a link while it is checked and opened', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const real = join(work, 'real.jsonl');
    const forged = join(work, 'forged.jsonl');
    writeFileSync(real, '{"id":"1","n":1}\n', { mode: 0o600 });
    // The same length: a read sized by the real one takes the whole forged one.
    writeFileSync(forged, '{"id":"9","n":9}\n', { mode: 0o600 });
    linkSync(real, file);
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const [file, real, forged, link, hard] = process.argv.slice(1);
         process.stdout.write('swapping\\n');
         for (;;) {
           try { fs.rmSync(link, { force: true }); fs.symlinkSync(forged, link); fs.renameSync(link, file); } catch {}
           try { fs.rmSync(hard, { force: true }); fs.linkSync(real, hard); fs.renameSync(hard, file); } catch {}
         }`,
        file,
        real,
        forged,
        join(work, 'swap-link'),
        join(work, 'swap-hard'),
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    // Reads begin once the swaps do (a loaded machine starts a process slowly).
    await new Promise((resolve) => swapper.stdout?.once('data', resolve));
    const seen = { real: 0, forged: 0, refused: 0 };
    try {
      for (let i = 0; i < 2000; i++) {
        try {
          const read = await readHistory(file, isEntry);
          if (read.entries.some((e) => e.id === '9')) seen.forged++;
          else if (read.entries.length > 0) seen.real++;
        } catch (error) {
          expect(error).toBeInstanceOf(HistoryPathError);
          seen.refused++;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    // Both states were met (the race ran), and the forged history never came back.
    expect(seen.real).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.forged).toBe(0);
  });
});

describe('a file that is not a history', () => {
  it('is refused before it is read or written: a notes file stays as it was', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const notes = join(work, 'notes.txt');
    const text = 'call the client on Monday\n{"id":"1"} is not a first line\n';
    writeFileSync(notes, text, { mode: 0o600 });
    await expect(readHistory(notes, isEntry)).rejects.toThrow(/is not an rfs history \(its first line is not one\)/);
    await expect(ListenSource.open(sourceOptions(notes))).rejects.toBeInstanceOf(HistoryPathError);
    expect(readFileSync(notes, 'utf8')).toBe(text);
  });

  it('takes an empty file, and a history whose first line is one', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    writeFileSync(file, '', { mode: 0o600 });
    await expect(readHistory(file, isEntry)).resolves.toEqual({ entries: [], damaged: 0 });
    writeFileSync(file, '{"id":"12","n":1}\n', { mode: 0o600 });
    await expect(readHistory(file, isEntry)).resolves.toEqual({ entries: [{ id: '12', n: 1 }], damaged: 0 });
  });
});

describe('ids read back', () => {
  it('reads back every id the listener writes, past 15 digits too', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...good, id: '999999999999999' })}\n`, { mode: 0o600 });
    const first = await ListenSource.open(sourceOptions(file));
    arrive(first, 'dlv_sixteen_digits');
    expect(first.list().map((s) => s.id)).toEqual(['1000000000000000', '999999999999999']);
    await first.close();
    const again = await ListenSource.open(sourceOptions(file));
    expect(again.damaged).toBe(0);
    expect(again.list().map((s) => s.id)).toEqual(['1000000000000000', '999999999999999']);
    await again.close();
  });

  it('numbers the entries anew when the next id would pass the safe integers', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...good, id: String(Number.MAX_SAFE_INTEGER) })}\n`, { mode: 0o600 });
    const first = await ListenSource.open(sourceOptions(file));
    arrive(first, 'dlv_after_max');
    expect(first.list().map((s) => [s.id, s.deliveryId])).toEqual([
      ['2', 'dlv_after_max'],
      ['1', 'dlv_1'],
    ]);
    await first.close();
    expect((await ListenSource.open(sourceOptions(file))).list().length).toBe(2);
  });
});

describe('default histories (one per port)', () => {
  it(`removes those of other ports unused for 30 days, and the oldest past the newest ${MAX_DEFAULT_HISTORIES}; never the current one, nor another file`, async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const now = Date.parse('2026-11-28T12:00:00Z');
    const day = 24 * 60 * 60 * 1000;
    const make = (name: string, ageDays: number) => {
      writeFileSync(join(work as string, name), '', { mode: 0o600 });
      utimesSync(join(work as string, name), (now - ageDays * day) / 1000, (now - ageDays * day) / 1000);
    };
    make('listen-8787.jsonl', 400);
    make('listen-1.jsonl', 31);
    make('notes.jsonl', 400);
    make('listen-x.jsonl', 400);
    // 25 recent ones, a day apart: the 19 newest stay beside the current one.
    for (let i = 0; i < 25; i++) make(`listen-${40000 + i}.jsonl`, 1 + i);
    const removed = await pruneDefaultHistories(join(work, 'listen-8787.jsonl'), now);
    const expected = ['listen-1.jsonl', ...Array.from({ length: 6 }, (_, i) => `listen-${40019 + i}.jsonl`)].sort();
    expect(removed).toEqual(expected);
    const left = readdirSync(work).filter((name) => /^listen-[0-9]+\.jsonl$/.test(name));
    expect(left.length).toBe(MAX_DEFAULT_HISTORIES);
    expect(left).toContain('listen-8787.jsonl');
    expect(readdirSync(work)).toEqual(expect.arrayContaining(['notes.jsonl', 'listen-x.jsonl']));
  });
});

/** A listener's record whose replays go to an app that answers `answer` bytes. */
function replayingOptions(historyFile: string, answer: number) {
  return {
    ...sourceOptions(historyFile),
    forwardTo: 'http://127.0.0.1:9/hooks',
    forward: async () => ({
      status: 201,
      error: null,
      durationMs: 1,
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(answer, 'a'),
      bodyTruncated: false,
    }),
  };
}

/** A delivery that verified, as the receiver reports it: signed with the record's secret (it re-signs only that). */
function arriveValid(source: ListenSource, deliveryId: string): void {
  const body = Buffer.from(`{"id":"${deliveryId}"}`);
  const timestamp = Math.floor(Date.parse('2026-11-28T12:00:00Z') / 1000);
  const signed = {
    [SIGNATURE_HEADERS.timestamp]: String(timestamp),
    [SIGNATURE_HEADERS.signature]: sign(sourceOptions('').secret(), timestamp, body),
  };
  source.add(
    {
      deliveryId,
      event: 'recording.completed',
      recordingId: 'rec_1',
      title: `title of ${deliveryId}`,
      valid: true,
      reason: null,
      explanation: 'ok',
      ageSeconds: 0,
      status: 201,
    },
    { method: 'POST', path: '/', headers: { 'x-service-delivery': deliveryId, ...signed }, body },
    'valid',
    Date.parse('2026-11-28T12:00:00Z'),
  );
}

describe("a replay's line", () => {
  it('holds only its own exchange, not its delivery again; a restart reads the delivery with every replay', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const answer = 8 * 1024;
    const source = await ListenSource.open(replayingOptions(file, answer));
    arriveValid(source, 'dlv_first');
    arriveValid(source, 'dlv_second');
    await source.close();
    const id = source.list().at(-1)?.id as string;
    for (let r = 0; r < 5; r++) {
      await source.replay(id, true, Buffer.from(`{"edited":${r}}`));
      // Each written before the next: one line each, not coalesced into the entry.
      await source.close();
    }
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBe(2 + 5);
    const parts = lines.slice(2).map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const part of parts) {
      expect(Object.keys(part)).toEqual(['id', 'exchange']);
      expect(part.id).toBe(id);
    }
    // A replay's line is about its own answer's size (base64), however many replays came before it.
    const sizes = lines.slice(2).map((line) => Buffer.byteLength(line));
    for (const size of sizes) expect(size).toBeLessThan(answer * 1.34 + 1024);

    const again = await ListenSource.open(replayingOptions(file, answer));
    expect(again.list().map((s) => s.deliveryId)).toEqual(['dlv_second', 'dlv_first']);
    const detail = again.detail(id);
    expect(detail?.exchanges.map((e) => e.request.body)).toEqual([0, 1, 2, 3, 4].map((r) => `{"edited":${r}}`));
    expect(detail?.exchanges.at(-1)?.response.body?.length).toBe(answer);
    expect(again.detail(again.list()[0]?.id as string)?.exchanges).toEqual([]);
    await again.close();
  });

  it('keeps the newest 20 exchanges read back however many part lines there are; a part with no entry is skipped, not damage', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const exchange = (n: number) => ({
      label: 'replay re-signed',
      at: new Date(Date.parse('2026-11-28T12:00:00Z') + n * 1000).toISOString(),
      requestHeaders: {},
      status: 201,
      headers: {},
      bodyBase64: Buffer.from(`answer ${n}`).toString('base64'),
      bodyTruncated: false,
      error: null,
      durationMs: 1,
    });
    const lines = [
      JSON.stringify(good),
      ...Array.from({ length: 30 }, (_, n) => JSON.stringify({ id: good.id, exchange: exchange(n) })),
      JSON.stringify({ id: '99', exchange: exchange(99) }),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    const source = await ListenSource.open(replayingOptions(file, 10));
    expect(source.damaged).toBe(0);
    expect(source.list().map((s) => s.id)).toEqual([good.id]);
    const bodies = source.detail(good.id)?.exchanges.map((e) => e.response.body);
    expect(bodies).toEqual(Array.from({ length: 20 }, (_, n) => `answer ${n + 10}`));
    await source.close();
  });

  // cli.md, Trust: no signature the listener made in any answer or file. A replay's line read back
  // (one an older rfs wrote, or a hand-edited file) goes through the rule a replay made now does.
  it('reads back a re-signed replay line carrying its signature without that signature', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const made = `sha256=${'ab'.repeat(32)}`;
    const exchange = (label: string) => ({
      label,
      at: '2026-11-28T12:00:01.000Z',
      requestHeaders: { 'x-service-timestamp': '1795953601', 'x-service-signature': made },
      status: 201,
      headers: {},
      bodyBase64: '',
      bodyTruncated: false,
      error: null,
      durationMs: 1,
    });
    const lines = [good, { id: good.id, exchange: exchange('replay re-signed') }, { id: good.id, exchange: exchange('replay as sent') }];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, { mode: 0o600 });
    const source = await ListenSource.open(replayingOptions(file, 10));
    const signatures = source.detail(good.id)?.exchanges.map((e) => e.request.headers['x-service-signature']);
    // The re-signed one says when it was made, not what; one replayed as sent carries the sender's own.
    expect(signatures).toEqual(['[re-signed by the listener at 2026-11-29T12:00:01.000Z: not kept]', made]);
    await source.close();
  });

  it('reads a history an older rfs wrote (a whole entry line at each change) as before', async () => {
    work = mkdtempSync(join(tmpdir(), 'rfs-history-'));
    const file = join(work, 'h.jsonl');
    const answer = (n: number) => ({
      label: n === 0 ? 'forward' : 'replay as sent',
      at: '2026-11-28T12:00:00.000Z',
      requestHeaders: {},
      status: 200 + n,
      headers: {},
      bodyBase64: Buffer.from(`answer ${n}`).toString('base64'),
      bodyTruncated: false,
      error: null,
      durationMs: 1,
    });
    const entry = (exchanges: number) => JSON.stringify({ ...good, exchanges: Array.from({ length: exchanges }, (_, n) => answer(n)) });
    writeFileSync(file, `${[entry(1), entry(2), entry(3)].join('\n')}\n`, { mode: 0o600 });
    const source = await ListenSource.open(replayingOptions(file, 10));
    expect(source.damaged).toBe(0);
    expect(source.detail(good.id)?.exchanges.map((e) => e.response.status)).toEqual([200, 201, 202]);
    await source.close();
    // Written anew at start in the format of this rfs: one entry line, read back the same.
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBe(1);
    const again = await ListenSource.open(replayingOptions(file, 10));
    expect(again.detail(good.id)?.exchanges.map((e) => e.response.body)).toEqual(['answer 0', 'answer 1', 'answer 2']);
    await again.close();
  });
});

describe("a line of the listener's history is checked as its type says", () => {
  it('takes a well-formed entry', () => {
    expect(isListenEntry(good)).toBe(true);
  });
  it("refuses a replay's line whose exchange is not one, or that carries anything else", () => {
    const exchange = {
      label: 'replay as sent',
      at: '2026-11-28T12:00:00.000Z',
      requestHeaders: {},
      status: 201,
      headers: {},
      bodyBase64: '',
      bodyTruncated: false,
      error: null,
      durationMs: 1,
    };
    expect(isListenPart({ id: '3', exchange })).toBe(true);
    expect(isListenPart({ id: '3', exchange: null })).toBe(false);
    expect(isListenPart({ id: 'Infinity', exchange })).toBe(false);
    expect(isListenPart({ id: '3', exchange: { ...exchange, bodyBase64: '{}' } })).toBe(false);
    expect(isListenPart({ id: '3', exchange, verdict: 'valid' })).toBe(false);
  });
  it.each([
    ['exchanges: [null]', { exchanges: [null] }],
    ['an exchange without its fields', { exchanges: [{ label: 'forward' }] }],
    ['id Infinity', { id: 'Infinity' }],
    ['id 1e21', { id: '1e21' }],
    ['id -1', { id: '-1' }],
    ['a header that is not text', { headers: { a: 1 } }],
    ['a body that is not base64', { bodyBase64: '{}' }],
    ['a status that is not a number', { status: '200' }],
    ['a title that is a number', { title: 5 }],
    ['a time that is not one', { at: 'yesterday' }],
  ])('refuses %s', (_name, change) => {
    expect(isListenEntry({ ...good, ...change })).toBe(false);
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
