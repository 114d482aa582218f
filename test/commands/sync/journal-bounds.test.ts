// The sync journal is read as a stream with bounds: `--journal /dev/zero`
// reached 6.6 GB and a 2 GB journal crashed rfs. A line is capped, a file past the size limit
// or one that is not a regular file is refused with exit 2 — by sync, sync status and doctor.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JOURNAL_BYTES, MAX_LINE_BYTES, readJournalFile } from '../../../src/sync/journal.js';
import { runRfs } from '../../helpers/child.js';
import { LINUX, needs } from '../../helpers/platform.js';

/** Preloaded into the child: its peak RSS (KiB) as the last line of stderr. */
const PEAK_RSS = fileURLToPath(new URL('../../helpers/peak-rss.cjs', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-journal-bounds-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const started = (id: string): string => `${JSON.stringify({ step: 'started', id, attempt: 1, at: '2026-11-22T10:00:00Z' })}\n`;

describe('reading the journal', () => {
  it('skips a line longer than the cap, without holding it, and reads the lines after it', () => {
    const file = join(dir, 'j.jsonl');
    writeFileSync(file, `${started('rec_1')}{"step":"started","id":"${'x'.repeat(MAX_LINE_BYTES + 10)}"}\n${started('rec_2')}`);
    const { states, problems } = readJournalFile(file);
    expect(problems).toEqual([{ line: 2, message: 'the line is longer than 4 MiB, more than any step rfs writes; skipped' }]);
    expect([...states.keys()]).toEqual(['rec_1', 'rec_2']);
  });

  it('still calls an unterminated last line incomplete, and reads every line of a journal larger than one chunk', () => {
    const file = join(dir, 'j.jsonl');
    const many = Array.from({ length: 2000 }, (_, i) => started(`rec_${i}`)).join('');
    writeFileSync(file, `${many}{"step":"sta`);
    const { states, problems } = readJournalFile(file);
    expect(states.size).toBe(2000);
    expect(problems).toEqual([{ line: 2001, message: 'the last line is incomplete (rfs was stopped while writing it); skipped' }]);
  });

  it('refuses a file past the size limit (a sparse one: nothing is written to disk)', () => {
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, '');
    truncateSync(file, MAX_JOURNAL_BYTES + 1);
    expect(() => readJournalFile(file)).toThrow(/is larger than 256 MiB, more than rfs reads/);
  });
});

function peakKiB(stderr: string): number {
  const m = /peak-rss-kib=(\d+)\s*$/.exec(stderr);
  if (!m) throw new Error(`no peak RSS in: ${stderr}`);
  return Number(m[1]);
}

describe.skipIf(!LINUX.met)(needs(LINUX, 'the built CLI on /dev/zero'), () => {
  const env = () => ({
    RFS_CONFIG_DIR: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    RFS_API_KEY: 'service_pk_0123456789abcdefghijklmnopqrstuv',
    RFS_BASE_URL: 'http://127.0.0.1:1',
    NODE_OPTIONS: `--require ${PEAK_RSS}`,
  });

  it.each([
    ['sync', ['sync', '--exec', 'true', '--provider', 'crm', '--journal', '/dev/zero']],
    ['sync --dry-run', ['sync', '--exec', 'true', '--provider', 'crm', '--journal', '/dev/zero', '--dry-run']],
    ['sync status', ['sync', 'status', '--journal', '/dev/zero']],
  ])('%s --journal /dev/zero: exit 2 at once, under 200 MB', async (_name, args) => {
    const r = await runRfs(args, { env: env() });
    expect(r.stderr).toMatch(/error: the journal \/dev\/zero is not a regular file/);
    expect(r.code).toBe(2);
    expect(peakKiB(r.stderr)).toBeLessThan(200 * 1024);
  });

  it('sync status on a journal past the size limit: exit 2', async () => {
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, '');
    truncateSync(file, MAX_JOURNAL_BYTES + 1);
    const r = await runRfs(['sync', 'status', '--journal', file], { env: env() });
    expect(r.stderr).toMatch(/is larger than 256 MiB/);
    expect(r.code).toBe(2);
    expect(peakKiB(r.stderr)).toBeLessThan(200 * 1024);
  });

  it('doctor: a journal that is /dev/zero is a failed check, read under 200 MB', async () => {
    mkdirSync(join(dir, 'state', 'rfs'), { recursive: true });
    symlinkSync('/dev/zero', join(dir, 'state', 'rfs', 'sync-default.jsonl'));
    const r = await runRfs(['doctor', '-o', 'json'], { env: env() });
    const checks = JSON.parse(r.stdout) as { check: string; result: string; detail: string }[];
    expect(checks.find((c) => c.check === 'sync-journal')).toMatchObject({
      result: 'fail',
      detail: expect.stringMatching(/is not a regular file$/),
    });
    expect(peakKiB(r.stderr)).toBeLessThan(200 * 1024);
  });
});
