// SIGTERM, as systemd or a container runtime sends it, stops `rfs sync` as Ctrl-C does
// (cli.md, sync): the running command finishes, its answer is journaled, and rfs exits 130
// (README: a unit lists 130 in SuccessExitStatus). The next run files that answer without
// running the command again. The real built CLI, as a separate process.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { RFS_BIN, runRfs } from '../../helpers/child.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, externalRecords, journalSteps, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 3 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-sigterm-'));
  mkdirSync(join(dir, 'markers'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

it('lets the running command finish, journals its answer, exits 130; the next run files it without the command', async () => {
  const env = syncEnv(h, dir, { MARKER_DIR: join(dir, 'markers') });
  const journal = join(dir, 'j.jsonl');
  const args = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', journal, '-o', 'ndjson', '--watch'];
  const child = spawn(process.execPath, [RFS_BIN, ...args], { env: { ...env, SLOW_MS: '1500' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    // The command has started (it writes its marker first, then sleeps 1.5 s before its record).
    await eventually(async () => (readdirSync(join(dir, 'markers')).length > 0 ? true : undefined), 10_000);
    expect(existsSync(join(dir, 'external.jsonl'))).toBe(false);
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  const [record, ...more] = externalRecords(join(dir, 'external.jsonl'));
  expect(more).toEqual([]);
  expect(journalSteps(journal).filter((s) => s.step === 'result')).toEqual([expect.objectContaining({ id: record!.recordingId })]);
  // Named as every other command names it (cli.md, Exit codes), not as a Ctrl-C.
  expect(stderr).toMatch(/; terminated \(SIGTERM\) while running the command for \S+, which answered: its answer is in the journal/);
  expect(stderr).not.toMatch(/interrupted while/);

  const next = await runRfs(
    args.filter((a) => a !== '--watch'),
    { env, timeoutMs: 30_000 },
  );
  expect(next.code).toBe(0);
  const lines = next.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines.find((l) => l.id === record!.recordingId)).toMatchObject({ ok: true, from: 'journal', externalId: record!.externalId });
  expect(externalRecords(join(dir, 'external.jsonl')).filter((r) => r.recordingId === record!.recordingId)).toHaveLength(1);
}, 60_000);

// a --watch stopped by SIGTERM while it waits for its next pass ended with no
// line at all, so a service manager's log could not tell a stop from a crash.
it.each([
  ['text', [] as string[]],
  ['json', ['--log-format', 'json']],
])(
  'stopped by SIGTERM between passes, writes a line that says so (%s) and exits 0',
  async (format, extra) => {
    const env = syncEnv(h, dir);
    const args = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '-o', 'ndjson', '--watch', ...extra];
    const child = spawn(process.execPath, [RFS_BIN, ...args, '--interval', '3600'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The first pass has ended: rfs now waits an hour for the next one.
      await eventually(async () => (/pass done|pass 1 ended/.test(stderr) ? true : undefined), 30_000);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const last = stderr.trim().split('\n').at(-1) ?? '';
    if (format === 'text') {
      expect(last).toMatch(/^sync: stopped between passes( \(.+\))?; no pass was cut short$/);
    } else {
      expect(JSON.parse(last)).toMatchObject({
        level: 'info',
        event: 'stop',
        msg: expect.stringMatching(/^sync: stopped between passes( \(.+\))?; no pass was cut short$/),
      });
    }
  },
  60_000,
);
