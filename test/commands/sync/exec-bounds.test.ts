// The command of `rfs sync` as a child process: --exec-timeout is a
// hard bound even when a process the command started in a session of its own holds its output
// open, and --concurrency 16 under --log-format json keeps every stderr line JSON (no
// MaxListenersExceededWarning from a listener per command).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../../src/core/lock.js';
import { runCommand } from '../../../src/sync/exec.js';
import { RFS_BIN, runRfs } from '../../helpers/child.js';
import { LINUX, needs } from '../../helpers/platform.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-exec-bounds-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!LINUX.met)(needs(LINUX, '--exec-timeout'), () => {
  it('keeps the answer of a command that exited while a detached grandchild (setsid) holds its output open', async () => {
    const pidFile = join(dir, 'pid');
    const began = performance.now();
    const ran = await runCommand({
      command: `setsid sleep 15 & echo $! > "${pidFile}"; echo X`,
      stdin: '{}\n',
      env: { PATH: process.env.PATH },
      timeoutMs: 1000,
    });
    const seconds = (performance.now() - began) / 1000;
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    try {
      // 15 s before: the wait lasted as long as the grandchild held the pipe; then it was a
      // timeout, now the answer of a command that exited 0 (its output drained).
      expect(seconds).toBeLessThan(5);
      expect(ran).toMatchObject({ timedOut: false, code: 0, stdout: 'X\n' });
      expect(ran.stderr).toBe('a process it started still held its output open');
      // The grandchild was out of reach (a session of its own): it is the test's to stop.
      expect(processAlive(grandchild)).toBe(true);
    } finally {
      process.kill(grandchild, 'SIGKILL');
    }
  });
});

// over 1 MiB in many short lines used to be read to the end (--exec-timeout,
// 300 s by default); the cap stops the command the moment it is passed, whatever the lines.
describe.skipIf(!LINUX.met)(needs(LINUX, "the 1 MiB cap on the command's output"), () => {
  it('stops a command that prints without end, in many short lines, at the cap and not at its timeout', async () => {
    const began = performance.now();
    const ran = await runCommand({ command: 'yes "a short line"', stdin: '{}\n', env: { PATH: process.env.PATH }, timeoutMs: 120_000 });
    expect((performance.now() - began) / 1000).toBeLessThan(30);
    // Ended by rfs's SIGTERM, or by its own failed write to the closed pipe, whichever came first.
    expect(ran).toMatchObject({ stdoutTooLong: true, timedOut: false });
    expect(ran.stdout).toHaveLength(1024 * 1024);
  }, 60_000);

  it('rfs sync reports that recording as printing more than 1 MiB and files the others, well before --exec-timeout', async () => {
    const h = await start({ rateLimit: 0, recordings: 3 });
    try {
      const ids = ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
      expect(ids.length).toBeGreaterThan(1);
      const bad = ids[0];
      // The first recording's command prints lines without end; the others answer at once.
      const command = `if [ "$RFS_RECORDING_ID" = "${bad}" ]; then yes '{"externalId":"never"}'; else echo "EXT-$RFS_RECORDING_ID"; fi`;
      const began = performance.now();
      const run = await runRfs(
        ['sync', '--exec', command, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '--exec-timeout', '120', '-o', 'ndjson'],
        { env: syncEnv(h, dir), timeoutMs: 110_000 },
      );
      expect((performance.now() - began) / 1000).toBeLessThan(60);
      expect(run.code).toBe(8);
      const lines = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; ok: boolean; error?: { code: string; title: string } });
      expect(lines.find((l) => l.id === bad)).toMatchObject({
        ok: false,
        stage: 'command',
        error: { code: 'COMMAND_OUTPUT', title: 'the command printed more than 1 MiB and was stopped' },
      });
      expect(lines.filter((l) => l.ok).map((l) => l.id)).toEqual(ids.filter((id) => id !== bad));
    } finally {
      await h.close();
    }
  }, 120_000);
});

describe('rfs sync --concurrency 16 --log-format json (the built CLI)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start({ rateLimit: 0, recordings: 30 });
  });
  afterEach(async () => {
    await h.close();
  });

  it('writes only JSON lines on stderr while 16 commands run at once', async () => {
    const unsynced = ((await h.api('/recordings?limit=100')).json.data as unknown[]).length;
    expect(unsynced).toBeGreaterThan(12);
    // Each command notes its start (s) and end (e) in one file: the most running at once follows.
    const events = join(dir, 'events');
    // --trace-warnings: a warning, if any, comes with the stack that says whose listener it was.
    const env = syncEnv(h, dir, { SLOW_MS: '1500', NODE_OPTIONS: '--trace-warnings' });
    const command = `echo s >> "${events}"; ${COMMAND}; code=$?; echo e >> "${events}"; exit $code`;
    const args = ['sync', '--exec', command, '--provider', 'crm', '--journal', join(dir, 'j.jsonl')];
    const child = spawn(
      process.execPath,
      [RFS_BIN, ...args, '--concurrency', '16', '--rate', '0', '--log-format', 'json', '-o', 'ndjson'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }
    expect(stdout.trim().split('\n')).toHaveLength(unsynced);
    const lines = stderr.trim().split('\n');
    const notJson = lines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(stderr).not.toMatch(/MaxListenersExceededWarning/);
    // The commands did overlap: more than ten ran at once at some point.
    let now = 0;
    let most = 0;
    for (const e of readFileSync(events, 'utf8').trim().split('\n')) {
      now += e === 's' ? 1 : -1;
      most = Math.max(most, now);
    }
    expect(most).toBeGreaterThan(10);
  }, 60_000);
});
