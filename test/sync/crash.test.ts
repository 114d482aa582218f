// Crash safety of rfs sync: the built CLI is killed with SIGKILL at each stage of a recording —
// while the command runs, after it has answered, while the filing request is in flight (a
// delayed sandbox answer holds that window open) — and then run again. Every recording must
// end up filed exactly once in the sandbox and created exactly once in the external file.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RFS_BIN, runRfs } from '../helpers/child.js';
import { eventually, start, type Harness } from '../sandbox/helpers.js';
import { COMMAND, counts, externalRecords, journalSteps } from './helpers.js';
import { LINUX, needs } from '../helpers/platform.js';

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
  return {
    PATH: process.env.PATH,
    RFS_CONFIG_DIR: join(dir, 'config'),
    RFS_API_KEY: h.keys.admin,
    RFS_BASE_URL: h.base,
    EXTERNAL_FILE: external,
    MARKER_DIR: markers,
    ...extra,
  };
}
const ARGS = () => ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', journal, '-o', 'ndjson'];

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

/** The commands run in groups of their own: a machine crash takes them too. */
function killCommands(): void {
  if (!existsSync(markers)) return;
  for (const name of readdirSync(markers)) {
    try {
      process.kill(Number(readFileSync(join(markers, name), 'utf8')), 'SIGKILL');
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

// Process groups (kill(-pid)) and SIGKILL as Linux has them.
describe.skipIf(!LINUX.met)(needs(LINUX, 'rfs sync killed with SIGKILL'), () => {
  it('while the command runs, before it created anything: runs it again with RFS_ATTEMPT=2', async () => {
    const ids = await unsynced();
    const child = startSync({ SLOW_MS: '4000' });
    await eventually(async () => (readdirSync(markers).length > 0 ? true : undefined), 10_000);
    await crash(child);
    const steps = journalSteps(journal);
    expect(steps.map((s) => s.step)).toEqual(['started']);
    expect(externalRecords(external)).toEqual([]);

    const out = await finish();
    const first = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r) => r.id === steps[0]?.id);
    expect(first).toMatchObject({ ok: true, attempt: 2 });
    await expectExactlyOnce(ids);
  });

  it('while the command runs, after it created its record: the RFS_ATTEMPT=2 run finds that record', async () => {
    const ids = await unsynced();
    const child = startSync({ SLOW_AFTER_MS: '4000' });
    await eventually(async () => (externalRecords(external).length > 0 ? true : undefined), 10_000);
    await crash(child);
    const [made] = externalRecords(external);
    expect(journalSteps(journal).map((s) => s.step)).toEqual(['started']);

    const out = await finish();
    const again = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r) => r.id === made?.recordingId);
    expect(again).toMatchObject({ ok: true, attempt: 2, externalId: made?.externalId });
    await expectExactlyOnce(ids);
  });

  it('after the command answered: files the journaled answer without running the command again', async () => {
    const ids = await unsynced();
    await delayFilings(5000);
    const child = startSync({});
    await eventually(async () => (journalSteps(journal).some((s) => s.step === 'result') ? true : undefined), 10_000);
    await crash(child);
    const answered = journalSteps(journal).find((s) => s.step === 'result')!;
    await h.control('/faults', { rate: 0 });

    const out = await finish();
    const refiled = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r) => r.id === answered.id);
    expect(refiled).toMatchObject({ ok: true, from: 'journal', attempt: 1 });
    expect(externalRecords(external).filter((r) => r.recordingId === answered.id)).toHaveLength(1);
    await expectExactlyOnce(ids);
  });

  it('while the filing request is in flight: files it again, and it counts once', async () => {
    const ids = await unsynced();
    await delayFilings(4000);
    const filingsBefore = ((await h.control('/stats')).json.requests as number) ?? 0;
    const child = startSync({});
    await eventually(async () => (journalSteps(journal).some((s) => s.step === 'result') ? true : undefined), 10_000);
    // The filing request has reached the sandbox, which holds it for 4 s before filing.
    await eventually(async () => (((await h.control('/stats')).json.requests as number) > filingsBefore + 2 ? true : undefined), 5000);
    await new Promise((r) => setTimeout(r, 300));
    await crash(child);
    await h.control('/faults', { rate: 0 });
    // Let the held request complete on the server side, as it would after a real crash: as soon
    // as the sandbox has filed it, rather than after a fixed wait.
    await eventually(async () => (((await h.control('/stats')).json.filings as number) > 0 ? true : undefined), 10_000);

    await finish();
    await expectExactlyOnce(ids);
  });

  it('shows why RFS_ATTEMPT matters: a command that ignores it creates a second record in that one window', async () => {
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
