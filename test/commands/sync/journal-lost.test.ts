// The journal and its lock are checked between recordings: deleted (or replaced) while
// rfs sync runs, the run stops with exit 2 and says so, instead of writing steps to an
// unlinked file or sharing the journal with a second sync.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RFS_BIN, runRfs, type Finished } from '../../helpers/child.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, externalRecords, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;
let journal: string;
let markers: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 3 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-lost-'));
  journal = join(dir, 'journal.jsonl');
  markers = join(dir, 'markers');
  mkdirSync(markers);
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => syncEnv(h, dir, { MARKER_DIR: markers, ...extra });
const ARGS = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', '', '-o', 'ndjson'];
const args = (): string[] => ARGS.map((a) => (a === '' ? journal : a));

/** rfs sync whose commands each take a while; `during` runs once the first command has started. */
async function syncWhile(during: () => void): Promise<Finished> {
  const child = spawn(process.execPath, [RFS_BIN, ...args()], { env: env({ SLOW_MS: '800' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const ended = new Promise<Finished>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  try {
    await eventually(async () => (readdirSync(markers).length > 0 ? true : undefined), 10_000);
    during();
    return await ended;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('rfs sync, its journal or lock deleted while it runs', () => {
  it('a deleted journal stops the run before the next recording, exit 2, saying what was done', async () => {
    const r = await syncWhile(() => unlinkSync(journal));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/sync: 1 filed, 0 failed; stopped before the next recording: nothing more was run or filed/);
    expect(r.stderr).toContain(`error: the journal ${journal} was deleted while rfs sync was using it`);
    // The first recording (in flight when the journal went) was finished; no other command ran.
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(markers)).toHaveLength(1);
    expect(existsSync(`${journal}.lock`)).toBe(false);

    // A new run takes it from there.
    const again = await runRfs(args(), { env: env(), timeoutMs: 30_000 });
    expect(again.code).toBe(0);
    expect(externalRecords(join(dir, 'external.jsonl'))).toHaveLength(3);
  }, 60_000);

  it('a deleted lock stops the run before the next recording, exit 2: a second sync could share the journal', async () => {
    const r = await syncWhile(() => unlinkSync(`${journal}.lock`));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: the lock ${journal}.lock was deleted while rfs sync held it`);
    expect(readdirSync(markers)).toHaveLength(1);
  }, 60_000);

  it('a second sync started after the lock was deleted is noticed by the first, which stops', async () => {
    let second: Promise<Finished> | undefined;
    const r = await syncWhile(() => {
      unlinkSync(`${journal}.lock`);
      second = runRfs(args(), { env: env(), timeoutMs: 30_000 });
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: the (lock|journal) \S+ was (deleted|replaced)/);
    expect((await second)?.code).toBe(0);
    // The second sync, alone on the journal now, handled what the first left.
    const res = await h.api('/recordings?limit=100');
    expect(res.json.data).toEqual([]);
  }, 60_000);
});
