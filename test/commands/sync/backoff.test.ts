// A recording whose command keeps failing (cli.md, sync): in --watch it waits 1 minute, then
// twice as long after each further failure (at most 1 hour); after --max-attempts failures it
// is parked, and `rfs sync status` shows it. Time is the injected clock's: nothing waits.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { backoffMs } from '../../../src/sync/backoff.js';
import { systemClock } from '../../../src/core/clock.js';
import { Journal } from '../../../src/sync/journal.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, externalRecords, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;
let journal: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 3 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-backoff-'));
  journal = join(dir, 'journal.jsonl');
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const t = bufferIO({
    env: syncEnv(h, dir, env),
  });
  return { t, run: (signal?: AbortSignal, clock: Clock = fakeTime().clock) => runCli(argv, t.io, { signal, clock }) };
}

const syncArgv = (...extra: string[]) => ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', journal, '-o', 'ndjson', ...extra];

interface Failed {
  step: 'failed';
  id: string;
  attempt: number;
  failures: number;
  at: string;
  parked?: boolean;
  error: { code: string; title: string };
}

function failedSteps(): Failed[] {
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Failed)
    .filter((s) => s.step === 'failed');
}

async function statusRows(): Promise<Record<string, unknown>[]> {
  const s = cli(['sync', 'status', '--journal', journal, '-o', 'json']);
  expect(await s.run()).toBe(0);
  return JSON.parse(s.t.stdout()) as Record<string, unknown>[];
}

describe('backoff after a failed command', () => {
  it('waits 1 min, then twice as long, at most 1 h', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffMs(n) / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('--watch runs a failing recording on the backoff, parks it after --max-attempts, and sync status shows it', async () => {
    const [victim] = ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
    const time = fakeTime();
    const controller = new AbortController();
    let passes = 0;
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        // Twelve passes of the default --interval (60 s): failures at passes 1, 2, 4 and 8.
        if (ms === 60_000 && ++passes === 12) controller.abort();
        return time.clock.sleep(ms, signal);
      },
    };
    const start = time.now;
    const { t, run } = cli(syncArgv('--watch', '--max-attempts', '4'), { FAIL_FOR: victim! });
    expect(await run(controller.signal, clock)).toBe(0);

    const failed = failedSteps().filter((s) => s.id === victim);
    expect(failed.map((f) => f.failures)).toEqual([1, 2, 3, 4]);
    expect(failed.map((f) => f.attempt)).toEqual([1, 2, 3, 4]);
    expect(failed.map((f) => f.parked === true)).toEqual([false, false, false, true]);
    expect(failed[0]!.error).toEqual({
      code: 'COMMAND_FAILED',
      title: `the command exited 4: the CRM refused ${victim}: matter is closed`,
    });
    // Each run came once its wait was over, at the first pass after it (passes are 60 s apart).
    const at = failed.map((f) => Date.parse(f.at));
    expect(at[0]! - start).toBeLessThan(60_000);
    for (const [i, wait] of [60_000, 120_000, 240_000].entries()) {
      const gap = at[i + 1]! - at[i]!;
      expect(gap).toBeGreaterThanOrEqual(wait);
      expect(gap).toBeLessThan(wait + 60_000);
    }
    // Never run again once parked: four failure lines, and the passes after it say so.
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.filter((r) => r.id === victim)).toHaveLength(4);
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    expect(t.stderr()).toMatch(
      new RegExp(`warning: ${victim} is parked after 4 failures of its command: rfs sync --retry-parked runs it again`),
    );
    expect(t.stderr()).toMatch(/pass done: 0 filed, 0 failed, 1 waiting after failures/);
    expect(t.stderr()).toMatch(/pass done: 0 filed, 0 failed, 1 parked \(--retry-parked runs them again\)/);
    expect(t.stderr().match(/pass done/g)).toHaveLength(12);

    const rows = await statusRows();
    expect(rows).toEqual([
      {
        id: victim,
        state: 'parked',
        detail: 'not run again until rfs sync --retry-parked',
        attempts: 4,
        failures: 4,
        lastError: failed[3]!.error,
        lastFailedAt: failed[3]!.at,
        nextTry: null,
      },
    ]);
    const table = cli(['sync', 'status', '--journal', journal, '-o', 'table']);
    expect(await table.run()).toBe(0);
    expect(table.t.stdout()).toMatch(new RegExp(`${victim}\\s+parked\\s+4\\s+the command exited 4`));
    expect(table.t.stderr()).toMatch(/0 pending, 0 failing, 1 parked/);

    const dry = cli(syncArgv('--dry-run', '-o', 'json'));
    expect(await dry.run()).toBe(0);
    expect((JSON.parse(dry.t.stdout()) as { id: string; action: string }[]).find((r) => r.id === victim)?.action).toBe('skip: parked');

    // A restart says what the journal holds: a command that failed is not one that "may have run".
    const again = cli(syncArgv(), { FAIL_FOR: victim! });
    expect(await again.run()).toBe(0);
    expect(again.t.stdout()).toBe('');
    expect(again.t.stderr()).toMatch(/journal: 1 parked recording\(s\)/);
    expect(again.t.stderr()).not.toMatch(/may have run/);

    // --retry-parked runs it again, with a fresh series of attempts.
    const retry = cli(syncArgv('--retry-parked'), { FAIL_FOR: victim! });
    const retryTime = fakeTime(time.now);
    expect(await retry.run(undefined, retryTime.clock)).toBe(8);
    expect(JSON.parse(retry.t.stdout())).toMatchObject({ id: victim, ok: false, attempt: 5 });
    const [row] = await statusRows();
    expect(row).toMatchObject({ id: victim, state: 'failing', failures: 1, attempts: 5 });
    expect(Date.parse(String(row!.nextTry)) - Date.parse(String(row!.lastFailedAt))).toBe(60_000);

    // Fixed, it is filed at the next run, and its state leaves the journal.
    const fixed = cli(syncArgv());
    expect(await fixed.run()).toBe(0);
    expect(JSON.parse(fixed.t.stdout())).toMatchObject({ id: victim, ok: true, attempt: 6 });
    expect(externalRecords(join(dir, 'external.jsonl')).filter((r) => r.recordingId === victim)).toHaveLength(1);
    expect(await statusRows()).toEqual([]);
  }, 60_000);

  it('without --watch, a run is itself the decision to retry: a failing recording runs again at once', async () => {
    const [victim] = ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
    expect(await cli(syncArgv(), { FAIL_FOR: victim! }).run()).toBe(8);
    const second = cli(syncArgv(), { FAIL_FOR: victim! });
    expect(await second.run()).toBe(8);
    expect(JSON.parse(second.t.stdout())).toMatchObject({ id: victim, ok: false, attempt: 2 });
    expect(second.t.stderr()).toMatch(/journal: 1 recording\(s\) whose command failed/);
    expect(second.t.stderr()).not.toMatch(/may have run/);
    expect(failedSteps().map((f) => f.failures)).toEqual([1, 2]);
  }, 30_000);
});

describe('the failed step of the journal', () => {
  it('survives compaction with its own time, and a later start still reads as "may have run"', () => {
    const failed = {
      step: 'failed',
      id: 'rec_a',
      attempt: 2,
      failures: 2,
      error: { code: 'COMMAND_FAILED', title: 'no' },
      at: '2026-01-01T00:00:00.000Z',
    };
    writeFileSync(
      journal,
      [
        { step: 'started', id: 'rec_a', attempt: 1, at: 'x' },
        { ...failed, attempt: 1, failures: 1 },
        { step: 'started', id: 'rec_a', attempt: 2, at: 'x' },
        failed,
        { step: 'started', id: 'rec_b', attempt: 1, at: 'x' },
        { step: 'failed', id: 'rec_b', attempt: 1, failures: 1, error: { code: 'COMMAND_FAILED', title: 'no' }, at: 'x' },
        { step: 'started', id: 'rec_b', attempt: 2, at: 'x' },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const j = Journal.open(journal, systemClock);
    j.close();
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.step === 'failed' && l.id === 'rec_a')).toEqual([failed]);
    const reread = Journal.peek(journal);
    expect(reread.problems).toEqual([]);
    expect(reread.states.get('rec_a')).toEqual({ attempts: 2, failure: { attempt: 2, failures: 2, error: failed.error, at: failed.at } });
    // rec_b was started again after its failure, and rfs stopped: that run may have done its work.
    expect(reread.states.get('rec_b')?.attempts).toBe(2);
    expect(reread.states.get('rec_b')?.failure?.attempt).toBe(1);
  });
});
