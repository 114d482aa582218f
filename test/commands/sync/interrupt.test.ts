// The Ctrl-C rule of rfs sync --watch (README, sync): 130 when Ctrl-C cut a pass short (the
// summary says what it was doing; a running command finishes and its answer is journaled), 0 when it stops the watch between passes, where nothing
// was cut short (as `webhooks listen` and `sandbox` stop on Ctrl-C).
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, externalRecords, journalSteps, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;
let markers: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 3 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-int-'));
  markers = join(dir, 'markers');
  mkdirSync(markers);
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function watch(env: NodeJS.ProcessEnv = {}, extra = ['--watch', '--interval', '9']) {
  const t = bufferIO({
    env: syncEnv(h, dir, { MARKER_DIR: markers, ...env }),
  });
  const argv = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '-o', 'ndjson', ...extra];
  return { t, run: (signal: AbortSignal, clock: Clock) => runCli(argv, t.io, { signal, clock }) };
}

describe('Ctrl-C on rfs sync', () => {
  // cli.md, sync: the first Ctrl-C or SIGTERM says at once what it waits for.
  it('says at once, on the first Ctrl-C, how many commands it waits for and that a second one stops them', async () => {
    const unsynced = ((await h.api('/recordings?limit=100')).json.data as unknown[]).length;
    expect(unsynced).toBeGreaterThan(1);
    const controller = new AbortController();
    const { t, run } = watch({ SLOW_MS: '1500' }, ['--concurrency', String(unsynced)]);
    const exit = run(controller.signal, fakeTime().clock);
    await eventually(async () => (readdirSync(markers).length === unsynced ? true : undefined), 10_000);
    controller.abort();
    // Before anything else happens: the abort itself wrote the line.
    expect(t.stderr()).toContain(
      `interrupted: waiting for ${unsynced} running commands (at most 300 s, --exec-timeout); Ctrl-C again stops them\n`,
    );
    expect(await exit).toBe(130);
  }, 30_000);

  it('says it as a JSON event with --log-format json', async () => {
    const controller = new AbortController();
    const { t, run } = watch({ SLOW_MS: '1500' }, ['--log-format', 'json', '--exec-timeout', '20']);
    const exit = run(controller.signal, fakeTime().clock);
    await eventually(async () => (readdirSync(markers).length === 1 ? true : undefined), 10_000);
    controller.abort();
    const last = JSON.parse(t.stderr().trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(last).toMatchObject({
      level: 'warn',
      event: 'interrupt',
      running: 1,
      msg: 'interrupted: waiting for 1 running command (at most 20 s, --exec-timeout); Ctrl-C again stops them',
    });
    expect(await exit).toBe(130);
  }, 30_000);

  // cli.md, sync: Ctrl-C (like SIGTERM) lets the running command finish, up to --exec-timeout,
  // and journals its answer; that answer is filed on the next run without running it again.
  it('exits 130 when it cuts a pass short, after the running command finished and its answer was journaled', async () => {
    const controller = new AbortController();
    const { t, run } = watch({ SLOW_MS: '1000' });
    const exit = run(controller.signal, fakeTime().clock);
    await eventually(async () => (readdirSync(markers).length > 0 ? true : undefined), 10_000);
    controller.abort();
    expect(await exit).toBe(130);
    expect(t.stderr()).toMatch(
      /sync: 0 filed, 0 failed; interrupted while running the command for \S+, which answered: its answer is in the journal/,
    );
    const created = externalRecords(join(dir, 'external.jsonl'));
    expect(created).toHaveLength(1);
    const answered = journalSteps(join(dir, 'j.jsonl')).filter((s) => s.step === 'result');
    expect(answered.map((s) => s.id)).toEqual([created[0]!.recordingId]);

    // The next run files that answer from the journal, and the command made no second record.
    const next = watch({}, []);
    expect(await next.run(new AbortController().signal, fakeTime().clock)).toBe(0);
    const lines = next.t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.id === created[0]!.recordingId)).toMatchObject({
      ok: true,
      from: 'journal',
      externalId: created[0]!.externalId,
    });
    expect(externalRecords(join(dir, 'external.jsonl'))).toHaveLength(3);
  }, 30_000);

  it('exits 0 when it stops the watch between passes: nothing was cut short', async () => {
    const controller = new AbortController();
    const time = fakeTime();
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 9_000) controller.abort();
        return time.clock.sleep(ms, signal);
      },
    };
    const { t, run } = watch();
    expect(await run(controller.signal, clock)).toBe(0);
    expect(t.stdout().trim().split('\n')).toHaveLength(3);
    expect(t.stderr()).toMatch(/pass done: 3 filed, 0 failed/);
    expect(t.stderr()).not.toMatch(/interrupted/);
    // It says it stopped, as its last line.
    expect(t.stderr()).toMatch(/\nsync: stopped between passes; no pass was cut short\n$/);
  }, 30_000);

  it('that comes once the pass has handled every recording cuts nothing short: the pass ends as usual (exit 8 here)', async () => {
    const controller = new AbortController();
    const [victim] = (await h.api('/recordings?limit=100')).json.data as { id: string }[];
    const { t, run } = watch({ FAIL_FOR: victim!.id }, []);
    let lines = 0;
    // Ctrl-C while the last result line is being written: every recording has been handled.
    t.io.stdout.on('data', (chunk: Buffer | string) => {
      lines += String(chunk).split('\n').length - 1;
      if (lines === 3) controller.abort();
    });
    expect(await run(controller.signal, fakeTime().clock)).toBe(8);
    expect(controller.signal.aborted).toBe(true);
    expect(t.stderr()).toMatch(/pass done: 2 filed, 1 failed/);
    expect(t.stderr()).not.toMatch(/interrupted/);
  }, 30_000);
});
