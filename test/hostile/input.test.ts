// Hostile batch input for `file --from -` against the in-process sandbox: every damaged line is
// reported by number and the rest are filed. (BOM, CRLF, blank lines, invalid UTF-8 and
// duplicate ids in one batch are in test/cli/batch.test.ts; these are the cases it lacks.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { MAX_LINE_BYTES } from '../../src/batch/lines.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';
import { eventually, start, type Harness } from '../sandbox/helpers.js';

let h: Harness;
let configDir: string;
let unsynced: string[] = [];

beforeAll(async () => {
  h = await start({ rateLimit: 0 });
  configDir = mkdtempSync(join(tmpdir(), 'rfs-hostile-input-'));
  const res = await h.api('/recordings?limit=40');
  unsynced = (res.json.data as { id: string }[]).map((r) => r.id);
});
afterAll(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** Fresh unsynced recording ids, never shared between tests. */
function take(n: number): string[] {
  const ids = unsynced.splice(0, n);
  if (ids.length < n) throw new Error('the sandbox ran out of unsynced recordings for these tests');
  return ids;
}

/** One result line of `file --from` (cli.md, file), as the assertions read it. */
interface ResultLine {
  line?: number;
  id?: unknown;
  ok?: boolean;
  error?: { code?: string; status?: number };
  [field: string]: unknown;
}

async function fileFrom(stdin: Readable, extra: string[] = []) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
  t.io.stdin = stdin;
  const code = await runCli(['file', '--from', '-', '--provider', 'crm', '-o', 'ndjson', ...extra], t.io, { clock: fakeTime().clock });
  const results = t
    .stdout()
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ResultLine);
  return { code, results, stderr: t.stderr() };
}

async function syncCount(id: string): Promise<number> {
  return (await h.api(`/recordings/${id}`)).json.data.syncCount as number;
}

const line = (id: string, ext: string, more = '') => `{"id":"${id}","externalId":"${ext}"${more}}\n`;

/** The bytes in chunks of `size`, as a pipe delivers them. */
function chunked(bytes: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

describe('file --from - with hostile lines', () => {
  it('stops at a 10 MB line with exit 2, having read at most 1 MiB of it; the lines before it are filed', async () => {
    const [a, b] = take(2) as [string, string];
    const huge = Buffer.alloc(10 * 1024 * 1024, 0x61);
    const input = Buffer.concat([
      Buffer.from(line(a, 'BIG-A')),
      Buffer.from(`{"id":"${a}","externalId":"`),
      huge,
      Buffer.from('"}\n'),
      Buffer.from(line(b, 'BIG-B')),
    ]);
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const started = performance.now();
    const run = await fileFrom(chunked(input, 64 * 1024));
    clearInterval(timer);
    expect(run.code).toBe(2);
    expect(run.results).toEqual([{ line: 1, id: a, ok: true, replayed: false, syncCount: 1 }]);
    expect(run.stderr).toContain(`error: line 2 of stdin holds more than ${MAX_LINE_BYTES} bytes: too much for one filing\n`);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(peak - before).toBeLessThan(40 * 1024 * 1024);
    // Nothing after the line that ended the read was filed.
    expect(await syncCount(b)).toBe(0);
  }, 20_000);

  it('stops at a too-long last line that has no newline, with exit 2', async () => {
    const [a] = take(1) as [string];
    const input = Buffer.concat([Buffer.from(line(a, 'LAST-A')), Buffer.alloc(MAX_LINE_BYTES + 1, 0x7b)]);
    const run = await fileFrom(chunked(input, 100_000));
    expect(run.code).toBe(2);
    expect(run.results.map((r) => [r.line, r.ok])).toEqual([[1, true]]);
    expect(run.stderr).toContain('error: line 2 of stdin holds more than');
  });

  it('a line of exactly 1 MiB is still read (and judged as a line)', async () => {
    const input = Buffer.concat([Buffer.alloc(MAX_LINE_BYTES, 0x7b), Buffer.from('\n')]);
    const run = await fileFrom(chunked(input, 100_000));
    expect(run.code).toBe(8);
    expect(run.results.map((r) => [r.line, r.ok, r.error?.code ?? null])).toEqual([[1, false, 'INVALID_LINE']]);
  });

  it('reads lines split anywhere between chunks: one byte at a time, through a multi-byte character and a CRLF', async () => {
    const [a, b] = take(2) as [string, string];
    const input = Buffer.from(
      `\uFEFF${line(a, 'ÉTÉ-€-😀', ',"metadata":{"note":"naïve ✓"}').replace('\n', '\r\n')}\r\n${line(b, 'SPLIT-B').replace('\n', '\r\n')}`,
    );
    const run = await fileFrom(chunked(input, 1));
    expect(run.code).toBe(0);
    expect(run.results).toEqual([
      { line: 1, id: a, ok: true, replayed: false, syncCount: 1 },
      { line: 3, id: b, ok: true, replayed: false, syncCount: 1 },
    ]);
    expect(run.stderr).toBe('2 filed, 0 failed, 1 blank line skipped\n');
    // The externalId arrived intact: filing it again, whole, is a replay of the same filing.
    const again = await fileFrom(Readable.from([Buffer.from(line(a, 'ÉTÉ-€-😀'))]));
    expect(again.results).toEqual([{ line: 1, id: a, ok: true, replayed: true, syncCount: 1 }]);
  });

  it('reports lines of NUL bytes, whitespace-only CRs, a BOM past line 1, and JSON that is not an object, one by one', async () => {
    const [a, b] = take(2) as [string, string];
    const input = Buffer.concat([
      Buffer.from(line(a, 'MIX-A')),
      Buffer.from([0x00, 0x00, 0x00, 0x0a]),
      Buffer.from(' \t \r\n'),
      Buffer.from(`\uFEFF${line(b, 'MIX-B')}`),
      Buffer.from('"just a string"\n'),
      Buffer.from('null\n'),
      Buffer.from(`{"id":"${a}","externalId":"MIX-A","id":"${b}"}\n`),
    ]);
    const run = await fileFrom(Readable.from([input]));
    expect(run.code).toBe(8);
    expect(run.results.map((r) => [r.line, r.ok, r.error?.code ?? null])).toEqual([
      [1, true, null],
      [2, false, 'INVALID_LINE'],
      [4, true, null],
      [5, false, 'INVALID_LINE'],
      [6, false, 'INVALID_LINE'],
      // Repeated keys: JSON.parse keeps the last, so this line files b again, a replay.
      [7, true, null],
    ]);
    expect(run.results[5]).toMatchObject({ id: b, replayed: false, duplicateOf: 4 });
    expect(run.stderr).toMatch(/^3 filed, 3 failed, 1 blank line skipped\n$/);
  });

  it("reports, as the line's own error, metadata nested too deep to send, and files the rest", async () => {
    const [a, b] = take(2) as [string, string];
    const depth = 100_000;
    const deep = `{"id":"${a}","externalId":"DEEP-A","metadata":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}\n`;
    const run = await fileFrom(Readable.from([Buffer.from(deep + line(b, 'DEEP-B'))]));
    expect(run.code).toBe(8);
    expect(run.results).toEqual([
      {
        line: 1,
        id: null,
        ok: false,
        error: { status: null, code: 'INVALID_LINE', title: 'the line is nested more than 256 levels deep', requestId: null },
      },
      { line: 2, id: b, ok: true, replayed: false, syncCount: 1 },
    ]);
    expect(await syncCount(a)).toBe(0);
  });

  it('counts no blank line after the final newline, however the input was cut into chunks', async () => {
    const [a, b] = take(2) as [string, string];
    const input = Buffer.from(line(a, 'END-A') + line(b, 'END-B'));
    const run = await fileFrom(Readable.from([input]));
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('2 filed, 0 failed\n');
  });

  it('refuses a single --metadata nested too deep to send, with exit 2 and nothing sent', async () => {
    const [a] = take(1) as [string];
    const file = join(configDir, 'deep.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, `{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
    const code = await runCli(['file', a, '--provider', 'crm', '--external-id', 'DEEP', '--metadata', `@${file}`], t.io);
    expect(code).toBe(2);
    expect(t.stderr().split('\n')[0]).toBe(
      "error: --metadata is nested more than 253 levels deep: its filing's answer could not be read back",
    );
    expect(t.stderr()).not.toMatch(/^\s+at /m);
    expect(await syncCount(a)).toBe(0);
  });

  it('ids that try to leave their path segment are filed (or refused) as that one id, never as another path', async () => {
    const [a] = take(1) as [string];
    const input = [`../${a}`, `${a}/../${a}`, `${a}?x=1`, `${a}%2F`, `%2e%2e`].map((id, i) => line(id, `PATH-${i}`)).join('');
    const run = await fileFrom(Readable.from([Buffer.from(input)]));
    expect(run.code).toBe(8);
    expect(run.results.map((r) => [r.ok, r.error?.status ?? null])).toEqual([
      [false, 404],
      [false, 404],
      [false, 404],
      [false, 404],
      [false, 404],
    ]);
    expect(await syncCount(a)).toBe(0);
  });

  it('ends at once on Ctrl-C while waiting for the next line of a pipe that stays open, with the summary', async () => {
    const [a] = take(1) as [string];
    const stdin = new PassThrough();
    stdin.write(line(a, 'OPEN-A'));
    const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
    t.io.stdin = stdin;
    const controller = new AbortController();
    const running = runCli(['file', '--from', '-', '--provider', 'crm', '-o', 'ndjson'], t.io, { signal: controller.signal });
    await eventually(async () => (t.stdout().includes('\n') ? true : undefined));
    const aborted = performance.now();
    controller.abort();
    const code = await Promise.race([running, new Promise<string>((r) => setTimeout(() => r('still waiting for stdin'), 2_000))]);
    stdin.destroy();
    expect(code).toBe(130);
    expect(performance.now() - aborted).toBeLessThan(1_000);
    expect(JSON.parse(t.stdout())).toEqual({ line: 1, id: a, ok: true, replayed: false, syncCount: 1 });
    expect(t.stderr()).toBe('1 filed, 0 failed; interrupted: lines up to 1 were processed, later lines were not\n');
  }, 10_000);
});
