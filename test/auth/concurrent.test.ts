// Two rfs processes changing the config file at once (issue 16, item 2): every
// read-modify-write of the file is serialised by a lock beside it, so nothing one of them
// saved is lost to the other's write. Child processes of the built bin/rfs.js against a real
// sandbox, as a user's two terminals (or a script's `&`) would run them.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';
import { runRfs, startSandboxProcess, type Finished, type SandboxProcess } from '../helpers/child.js';

const ROUNDS = 20;
// Rounds use folders of their own, so a few run at once: each round still races its own
// processes against each other, and the file spends its time on the races, not on waiting.
const AT_ONCE = 4;

/** Runs `round(0)` … `round(ROUNDS - 1)`, AT_ONCE at a time. */
async function rounds(round: (n: number) => Promise<void>): Promise<void> {
  for (let first = 0; first < ROUNDS; first += AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, ROUNDS - first) }, (_, i) => round(first + i)));
  }
}
// Each round starts two or three processes; on a loaded machine that is a second or more.
const SLOW = { timeout: 240_000 };

let sandbox: SandboxProcess;
let tmp: string;

beforeAll(async () => {
  // No rate limit: 20 rounds of logins would otherwise meet the sandbox's 120 a minute.
  sandbox = await startSandboxProcess(['--rate-limit', '0']);
  tmp = mkdtempSync(join(tmpdir(), 'rfs-concurrent-'));
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

interface Stored {
  defaultProfile?: string;
  profiles: Record<string, { baseUrl: string; apiKey: string }>;
}

const readConfig = (dir: string): Stored => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Stored;

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

describe('concurrent changes to the config file', () => {
  it(`two logins for different profiles at once lose neither, ${ROUNDS} rounds`, SLOW, async () => {
    const keyA = sandbox.apiKeys.admin as string;
    const keyB = sandbox.apiKeys.otherWorkspace as string;
    const lost: number[] = [];
    await rounds(async (round) => {
      const dir = join(tmp, `logins-${round}`);
      const [a, b] = await Promise.all([login(dir, 'A', keyA), login(dir, 'B', keyB)]);
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
    });
    expect(
      lost.sort((x, y) => x - y),
      `rounds that lost a profile`,
    ).toEqual([]);
  });

  it(`a login racing auth switch and auth logout loses nothing, ${ROUNDS} rounds`, SLOW, async () => {
    const key = sandbox.apiKeys.admin as string;
    const bad: { round: number; stored: Stored }[] = [];
    await rounds(async (round) => {
      const dir = join(tmp, `race-${round}`);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Saved before: K (the default), S (to switch to) and L (to log out).
      const before: Stored = {
        defaultProfile: 'K',
        profiles: Object.fromEntries(['K', 'S', 'L'].map((name) => [name, { baseUrl: sandbox.baseUrl, apiKey: key }])),
      };
      writeFileSync(join(dir, 'config.json'), JSON.stringify(before), { mode: 0o600 });
      const [n, s, l] = await Promise.all([
        login(dir, 'N', key),
        rfs(dir, ['auth', 'switch', 'S']),
        // cli.md, auth: logout asks first; with no terminal, --yes answers.
        rfs(dir, ['auth', 'logout', '--profile', 'L', '--yes']),
      ]);
      for (const run of [n, s, l]) expectOk(run);
      const stored = readConfig(dir);
      // In any serial order: N was added, L removed, K and S kept, S the default (switch made it
      // so, and neither the login nor the logout changes a default that exists).
      const right = Object.keys(stored.profiles).sort().join() === 'K,N,S' && stored.defaultProfile === 'S';
      if (!right) bad.push({ round, stored });
    });
    expect(
      bad.map(({ round, stored }) => ({ round, profiles: Object.keys(stored.profiles).sort(), defaultProfile: stored.defaultProfile })),
    ).toEqual([]);
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
    // A live process that is not this one (whose own pid the lock takes for a predecessor's)
    // holds the lock: another rfs in the middle of a change, as far as the lock can tell.
    const owner = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pid = owner.pid as number;
      writeFileSync(join(dir, 'config.json.lock'), `${pid}\n${new Date().toISOString()}\n`);
      // The wait runs on the run's clock: 10 s pass at once, and each pause is recorded.
      const time = fakeTime(Date.now());
      const started = time.now;
      const t = bufferIO({ env: { RFS_CONFIG_DIR: dir } });
      const code = await runCli(['auth', 'switch', 'S'], t.io, { clock: time.clock });
      expect(code, t.stderr()).toBe(6);
      expect(time.now - started).toBeGreaterThanOrEqual(10_000);
      expect(time.waits.length).toBeGreaterThan(1);
      expect(t.stderr()).toContain(`locked (pid ${pid}, since`);
      expect(t.stderr()).toMatch(/if no other rfs is running, delete .*config\.json\.lock/);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    } finally {
      owner.kill('SIGKILL');
    }
  });
});
