// Crash safety of rfs sync: the built CLI is killed with SIGKILL at each stage of a recording —
// while the command runs, after it has answered, while the filing request is in flight (a
// delayed sandbox answer holds that window open) — and then run again. Every recording must
// end up filed exactly once in the sandbox and created exactly once in the external file.
// Each kill is made with one command at a time and with eight (--concurrency 8): then every
// recording is at that stage at once when rfs dies, and the journal's guarantees must hold for
// each of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RFS_BIN, runRfs } from '../../helpers/child.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, counts, externalRecords, journalSteps, syncEnv } from './helpers.js';
import { LINUX, needs } from '../../helpers/platform.js';

let h: Harness;
let dir: string;
let external: string;
let journal: string;
let markers: string;
let children: ChildProcess[] = [];

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 6 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-crash-'));
  external = join(dir, 'external.jsonl');
  journal = join(dir, 'journal.jsonl');
  markers = join(dir, 'markers');
  mkdirSync(markers);
});
afterEach(async () => {
  for (const child of children) killGroup(child);
  killCommands();
  children = [];
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return syncEnv(h, dir, { MARKER_DIR: markers, ...extra });
}
let concurrency = 1;
const ARGS = () => [
  'sync',
  '--exec',
  COMMAND,
  '--provider',
  'crm',
  '--journal',
  journal,
  '-o',
  'ndjson',
  '--concurrency',
  String(concurrency),
  // Unpaced, as the sandbox here is: at the default rate a run's requests beyond the burst of 10
  // would wait real time, which says nothing of crash safety.
  '--rate',
  '0',
];

/** rfs sync in a process group of its own, so that the test can kill it like a crash would. */
function startSync(extra: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [RFS_BIN, ...ARGS()], { env: env(extra), detached: true, stdio: 'ignore' });
  children.push(child);
  return child;
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The commands run in groups of their own (each marker holds one): a machine crash takes them too. */
function killCommands(): void {
  if (!existsSync(markers)) return;
  for (const name of readdirSync(markers)) {
    try {
      // A marker read before it was written holds nothing, and kill(-0) would be this group.
      const group = Number(readFileSync(join(markers, name), 'utf8'));
      if (Number.isInteger(group) && group > 1) process.kill(-group, 'SIGKILL');
    } catch {
      // Finished already.
    }
  }
}

function crash(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    killGroup(child);
    killCommands();
  });
}

async function unsynced(): Promise<string[]> {
  return ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
}

/** Every recording filed exactly once, and created exactly once externally. */
async function expectExactlyOnce(ids: string[]): Promise<void> {
  expect(await unsynced()).toEqual([]);
  for (const id of ids) expect(((await h.api(`/recordings/${id}`)).json.data as { syncCount: number }).syncCount).toBe(1);
  const created = counts(externalRecords(external).map((r) => r.recordingId));
  expect([...created.keys()].sort()).toEqual([...ids].sort());
  expect([...created.values()].every((n) => n === 1)).toBe(true);
}

async function finish(extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await runRfs(ARGS(), { env: env(extra), timeoutMs: 30_000 });
  expect(r.stderr).not.toMatch(/^error:/m);
  expect(r.code).toBe(0);
  return r.stdout;
}

async function delayFilings(ms: number): Promise<void> {
  expect((await h.control('/faults', { rate: 1, kinds: ['delay'], delayMs: ms, match: '/filings' })).status).toBe(200);
}

/** The result lines of a run, by recording id. */
function byId(out: string): Map<string, Record<string, unknown>> {
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return new Map(lines.map((l) => [String(l.id), l]));
}

/** Resolves once `count()` reaches `n`. */
async function reach(count: () => number | Promise<number>, n: number, ms = 10_000): Promise<void> {
  await eventually(async () => ((await count()) >= n ? true : undefined), ms);
}

// Process groups (kill(-pid)) and SIGKILL as Linux has them.
describe.skipIf(!LINUX.met)(needs(LINUX, 'rfs sync killed with SIGKILL'), () => {
  describe.each([1, 8])('with --concurrency %i', (n) => {
    /** How many recordings are at the stage when rfs is killed: as many commands as run at once. */
    let atOnce = 0;
    beforeEach(async () => {
      concurrency = n;
      atOnce = Math.min(n, (await unsynced()).length);
    });

    it('while the command runs, before it created anything: runs it again with RFS_ATTEMPT=2', async () => {
      const ids = await unsynced();
      const child = startSync({ SLOW_MS: '4000' });
      // Every command that was started is running (its marker written) when rfs dies.
      await reach(() => readdirSync(markers).length, atOnce);
      await crash(child);
      const steps = journalSteps(journal);
      expect(steps.map((s) => s.step)).toEqual(Array(atOnce).fill('started'));
      expect(externalRecords(external)).toEqual([]);

      const results = byId(await finish());
      for (const step of steps) expect(results.get(step.id)).toMatchObject({ ok: true, attempt: 2 });
      await expectExactlyOnce(ids);
    });

    it('while the command runs, after it created its record: the RFS_ATTEMPT=2 run finds that record', async () => {
      const ids = await unsynced();
      const child = startSync({ SLOW_AFTER_MS: '4000' });
      await reach(() => externalRecords(external).length, atOnce);
      await crash(child);
      const made = externalRecords(external);
      expect(journalSteps(journal).map((s) => s.step)).toEqual(Array(atOnce).fill('started'));

      const results = byId(await finish());
      for (const record of made) {
        expect(results.get(record.recordingId)).toMatchObject({ ok: true, attempt: 2, externalId: record.externalId });
      }
      await expectExactlyOnce(ids);
    });

    it('after the command answered: files the journaled answer without running the command again', async () => {
      const ids = await unsynced();
      await delayFilings(5000);
      const child = startSync({});
      await reach(() => journalSteps(journal).filter((s) => s.step === 'result').length, atOnce);
      await crash(child);
      const answered = journalSteps(journal).filter((s) => s.step === 'result');
      await h.control('/faults', { rate: 0 });

      const results = byId(await finish());
      for (const step of answered) {
        expect(results.get(step.id)).toMatchObject({ ok: true, from: 'journal', attempt: 1 });
        expect(externalRecords(external).filter((r) => r.recordingId === step.id)).toHaveLength(1);
      }
      await expectExactlyOnce(ids);
    });

    it('while the filing request is in flight: files it again, and it counts once', async () => {
      const ids = await unsynced();
      // Held 2 s: the kill comes about 0.3 s after the filings arrive, and the test then waits
      // for the sandbox to finish them.
      await delayFilings(2000);
      const requestsBefore = ((await h.control('/stats')).json.requests as number) ?? 0;
      const child = startSync({});
      await reach(() => journalSteps(journal).filter((s) => s.step === 'result').length, atOnce);
      // The filing requests have reached the sandbox (the list, then a fetch and a filing per
      // recording), which holds each for 2 s before filing.
      await reach(async () => ((await h.control('/stats')).json.requests as number) - requestsBefore, 1 + 2 * atOnce, 5000);
      await new Promise((r) => setTimeout(r, 300));
      await crash(child);
      await h.control('/faults', { rate: 0 });
      // Let the held requests complete on the server side, as they would after a real crash: as
      // soon as the sandbox has filed them, rather than after a fixed wait.
      await reach(async () => (await h.control('/stats')).json.filings as number, atOnce);

      await finish();
      await expectExactlyOnce(ids);
    });
  });

  it('shows why RFS_ATTEMPT matters: a command that ignores it creates a second record in that one window', async () => {
    concurrency = 1;
    const child = startSync({ SLOW_AFTER_MS: '4000', IGNORE_ATTEMPT: '1' });
    await eventually(async () => (externalRecords(external).length > 0 ? true : undefined), 10_000);
    await crash(child);
    const [made] = externalRecords(external);
    await finish({ IGNORE_ATTEMPT: '1' });
    expect(externalRecords(external).filter((r) => r.recordingId === made?.recordingId)).toHaveLength(2);
    // The service still counts one filing of the recording (the second record's).
    expect(((await h.api(`/recordings/${made?.recordingId}`)).json.data as { syncCount: number }).syncCount).toBe(1);
  });
});
