// Two rfs processes changing the config file at once: every
// read-modify-write of the file is serialised by a lock beside it, so nothing one of them
// saved is lost to the other's write. Child processes of the built bin/rfs.js against a real
// sandbox, as a user's two terminals (or a script's `&`) would run them.
//
// Every round is a race that really happens: the lock is held (by a live process that is not
// an rfs, as another rfs in the middle of a change would hold it) while the round's processes
// start, read the file and reach the lock; then it is released, and they all go for it at once.
// While it is held, none of them may finish or change the file. After it, each must have
// re-read the file under the lock: a save that changed what it had read before waiting loses
// the other profile in every round (5 of 5), where rounds left to the chance of two starts
// overlapping lost it in 15 of 20 and took 100 processes to show it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { runRfs, startSandboxProcess, type Finished, type SandboxProcess } from '../../helpers/child.js';

const ROUNDS = 5;
// Each round's processes start together, all rounds at once, while their locks are held.
const SLOW = { timeout: 60_000 };
// rfs waits 10 s for a live owner (then exit 6): the hold ends well before, whatever happens.
const MAX_HOLD_MS = 7_000;

let sandbox: SandboxProcess;
let tmp: string;
/**
 * The live owner of every held lock: a process that is not this one (whose own pid the lock
 * takes for a predecessor's) and not an rfs, so another rfs in the middle of a change as far as
 * the lock can tell.
 */
let owner: ChildProcess;
const heldBy = (): string => `${owner.pid}\n${new Date().toISOString()}\n`;

beforeAll(async () => {
  // No rate limit: the rounds' logins all check their key at once.
  sandbox = await startSandboxProcess(['--rate-limit', '0']);
  tmp = mkdtempSync(join(tmpdir(), 'rfs-concurrent-'));
  owner = spawn('sleep', ['120'], { stdio: 'ignore' });
});
afterAll(async () => {
  owner?.kill('SIGKILL');
  await sandbox?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

interface Stored {
  defaultProfile?: string;
  profiles: Record<string, { baseUrl: string; apiKey: string }>;
}

const readConfig = (dir: string): Stored => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Stored;
const configText = (dir: string): string | undefined =>
  existsSync(join(dir, 'config.json')) ? readFileSync(join(dir, 'config.json'), 'utf8') : undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function login(dir: string, profile: string, key: string): Promise<Finished> {
  return runRfs(['auth', 'login', '--with-key', '--profile', profile, '--base-url', sandbox.baseUrl], {
    env: { RFS_CONFIG_DIR: dir },
    stdin: `${key}\n`,
    timeoutMs: 30_000,
  });
}

const rfs = (dir: string, args: string[]): Promise<Finished> => runRfs(args, { env: { RFS_CONFIG_DIR: dir }, timeoutMs: 30_000 });

function expectOk(run: Finished): void {
  expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
}

/** The key checks `auth login` made (GET /recordings, before it takes the lock to save). */
async function keyChecks(): Promise<number> {
  const log = (await (await fetch(`${sandbox.baseUrl}/_sandbox/requests`)).json()) as { data: { method: string; path: string }[] };
  return log.data.filter((r) => r.method === 'GET' && r.path.endsWith('/recordings')).length;
}

/**
 * Runs ROUNDS rounds at once, each in a folder of its own (holding `before` as its config file,
 * when given), with each folder's config lock held
 * until every round's logins have checked their keys (so they are at the lock) and a moment
 * more; asserts that nothing finished or changed meanwhile; then releases every lock at once.
 */
async function heldRounds(
  name: string,
  logins: number,
  before: Stored | undefined,
  round: (dir: string) => Promise<Finished>[],
): Promise<{ dir: string; runs: Finished[] }[]> {
  await fetch(`${sandbox.baseUrl}/_sandbox/requests`, { method: 'DELETE' });
  const dirs = Array.from({ length: ROUNDS }, (_, n) => join(tmp, `${name}-${n}`));
  const locks = dirs.map((dir) => join(dir, 'config.json.lock'));
  for (const [n, dir] of dirs.entries()) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (before) writeFileSync(join(dir, 'config.json'), JSON.stringify(before), { mode: 0o600 });
    writeFileSync(locks[n] as string, heldBy(), { mode: 0o600 });
  }
  const texts = dirs.map(configText);
  let held = true;
  const finishedWhileHeld: string[] = [];
  const runs = dirs.map((dir, n) =>
    Promise.all(
      round(dir).map((run, i) =>
        run.then((done) => {
          if (held) finishedWhileHeld.push(`round ${n}, process ${i}: exit ${done.code} ${done.stderr}`);
          return done;
        }),
      ),
    ),
  );
  const started = Date.now();
  while ((await keyChecks()) < ROUNDS * logins && Date.now() - started < MAX_HOLD_MS) await sleep(50);
  // `auth switch` and `auth logout` ask nothing of the service: they reach the lock first.
  await sleep(Math.min(300, Math.max(0, MAX_HOLD_MS - (Date.now() - started))));
  expect(await keyChecks(), 'logins that reached the lock while it was held').toBe(ROUNDS * logins);
  expect(finishedWhileHeld, 'processes that finished while the lock was held').toEqual([]);
  expect(dirs.map(configText), 'the files while the lock was held').toEqual(texts);
  held = false;
  for (const lock of locks) unlinkSync(lock);
  return (await Promise.all(runs)).map((finished, n) => ({ dir: dirs[n] as string, runs: finished }));
}

describe('concurrent changes to the config file', () => {
  it(`two logins for different profiles, released at once, lose neither, ${ROUNDS} rounds`, SLOW, async () => {
    const keyA = sandbox.apiKeys.admin as string;
    const keyB = sandbox.apiKeys.otherWorkspace as string;
    const rounds = await heldRounds('logins', 2, undefined, (dir) => [login(dir, 'A', keyA), login(dir, 'B', keyB)]);
    const lost: number[] = [];
    for (const [round, { dir, runs }] of rounds.entries()) {
      const [a, b] = runs as [Finished, Finished];
      expectOk(a);
      expectOk(b);
      expect(a.stderr).toMatch(/Saved to/);
      expect(b.stderr).toMatch(/Saved to/);
      const stored = readConfig(dir);
      if (Object.keys(stored.profiles).sort().join() !== 'A,B') lost.push(round);
      else {
        expect(stored.profiles.A?.apiKey).toBe(keyA);
        expect(stored.profiles.B?.apiKey).toBe(keyB);
        // Whichever saved first became the default.
        expect(['A', 'B']).toContain(stored.defaultProfile);
      }
    }
    expect(lost, `rounds that lost a profile`).toEqual([]);
  });

  it(`a login racing auth switch and auth logout, released at once, loses nothing, ${ROUNDS} rounds`, SLOW, async () => {
    const key = sandbox.apiKeys.admin as string;
    // Saved before: K (the default), S (to switch to) and L (to log out).
    const before: Stored = {
      defaultProfile: 'K',
      profiles: Object.fromEntries(['K', 'S', 'L'].map((name) => [name, { baseUrl: sandbox.baseUrl, apiKey: key }])),
    };
    const rounds = await heldRounds('race', 1, before, (dir) => [
      login(dir, 'N', key),
      rfs(dir, ['auth', 'switch', 'S']),
      // cli.md, auth: logout asks first; with no terminal, --yes answers.
      rfs(dir, ['auth', 'logout', '--profile', 'L', '--yes']),
    ]);
    const bad: { round: number; profiles: string[]; defaultProfile: string | undefined }[] = [];
    for (const [round, { dir, runs }] of rounds.entries()) {
      for (const run of runs) expectOk(run);
      const stored = readConfig(dir);
      // In any serial order: N was added, L removed, K and S kept, S the default (switch made it
      // so, and neither the login nor the logout changes a default that exists).
      const right = Object.keys(stored.profiles).sort().join() === 'K,N,S' && stored.defaultProfile === 'S';
      if (!right) bad.push({ round, profiles: Object.keys(stored.profiles).sort(), defaultProfile: stored.defaultProfile });
    }
    expect(bad).toEqual([]);
  });

  it('waits 10 s for a live rfs holding the lock, then fails with exit 6 and changes nothing', async () => {
    const dir = join(tmp, 'busy');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const before = JSON.stringify({
      defaultProfile: 'K',
      profiles: {
        K: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.admin },
        S: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.admin },
      },
    });
    writeFileSync(join(dir, 'config.json'), before, { mode: 0o600 });
    writeFileSync(join(dir, 'config.json.lock'), heldBy());
    // The wait runs on the run's clock: 10 s pass at once, and each pause is recorded.
    const time = fakeTime(Date.now());
    const started = time.now;
    const t = bufferIO({ env: { RFS_CONFIG_DIR: dir } });
    const code = await runCli(['auth', 'switch', 'S'], t.io, { clock: time.clock });
    expect(code, t.stderr()).toBe(6);
    expect(time.now - started).toBeGreaterThanOrEqual(10_000);
    expect(time.waits.length).toBeGreaterThan(1);
    expect(t.stderr()).toContain(`locked (pid ${owner.pid}, since`);
    expect(t.stderr()).toMatch(/if no other rfs is running, delete .*config\.json\.lock/);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });
});
