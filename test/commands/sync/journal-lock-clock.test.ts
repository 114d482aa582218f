// The journal takes the one lock of core/lock.ts and stamps steps with the run's clock
//: its own lock took an empty lock file (one whose owner had just created it
// and not yet written its pid) as stale at once, and `new Date()` ignored the injected clock.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;
beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 4 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-journal-lock-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sync(journal: string, extra: string[] = []) {
  const t = bufferIO({ env: syncEnv(h, dir) });
  const time = fakeTime(Date.parse('2031-03-04T05:06:07Z'));
  const argv = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', journal, '-o', 'ndjson', ...extra];
  const code = await runCli(argv, t.io, { clock: time.clock });
  return { code, stderr: t.stderr(), time };
}

describe('the sync journal', () => {
  it('stamps every step with the run clock', async () => {
    const journal = join(dir, 'j.jsonl');
    // Left pending by an earlier run: the compaction at start rewrites it, stamped too.
    writeFileSync(journal, `${JSON.stringify({ step: 'started', id: 'rec_gone', attempt: 1, at: '2020-01-01T00:00:00Z' })}\n`);
    // A command that fails for every recording leaves started and failed steps behind.
    const t = bufferIO({ env: syncEnv(h, dir) });
    const time = fakeTime(Date.parse('2031-03-04T05:06:07Z'));
    const code = await runCli(['sync', '--exec', 'exit 3', '--provider', 'crm', '--journal', journal, '-o', 'ndjson'], t.io, {
      clock: time.clock,
    });
    expect(code).toBe(8);
    const steps = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { at: string });
    expect(steps.length).toBeGreaterThan(2);
    for (const s of steps) expect(s.at.slice(0, 10)).toBe('2031-03-04');
  });

  it('takes the lock of core/lock.ts: pid and time inside, gone after the run', async () => {
    const journal = join(dir, 'j.jsonl');
    let seen = '';
    const t = bufferIO({ env: syncEnv(h, dir) });
    const argv = [
      'sync',
      '--exec',
      `cat "${journal}.lock" > "${dir}/lock-seen"; ${COMMAND}`,
      '--provider',
      'crm',
      '--journal',
      journal,
      '--max-items',
      '1',
    ];
    expect(await runCli(argv, t.io, { clock: fakeTime().clock })).toBe(0);
    seen = readFileSync(join(dir, 'lock-seen'), 'utf8');
    // The pid, the machine's time, then where the holder runs (core/lock.ts: host, boot, pidns).
    expect(seen).toMatch(
      new RegExp(`^${process.pid}\\n\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\nhost=\\S+\\nboot=[0-9a-f-]{36}\\npidns=pid:\\[\\d+\\]\\n$`),
    );
    expect(() => readFileSync(`${journal}.lock`)).toThrow(/ENOENT/);
  });

  it('does not take over a lock that is empty because its owner is writing it (exit 2), but one of a dead pid', async () => {
    const journal = join(dir, 'j.jsonl');
    writeFileSync(`${journal}.lock`, '');
    const busy = await sync(journal);
    expect(busy.stderr).toMatch(/error: another rfs sync is using the journal/);
    expect(busy.code).toBe(2);

    writeFileSync(`${journal}.lock`, '999999\n2031-03-04T05:00:00.000Z\n');
    expect((await sync(journal)).code).toBe(0);
  });
});
