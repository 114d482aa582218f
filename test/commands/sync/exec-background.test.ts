// A command that answers and exits 0 but leaves a background child holding its stdout (`( sleep
// 60 & )`, common in shell scripts): its answer is filed once the command has exited and its
// output drained, not discarded as a timeout; and its process group is signalled, so nothing it
// started is left running (docs/sync.md, "What rfs waits for").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { processAlive } from '../../../src/core/lock.js';
import { runCommand } from '../../../src/sync/exec.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { LINUX, needs } from '../../helpers/platform.js';
import { start, type Harness } from '../../sandbox/helpers.js';

let h: Harness;
let dir: string;
const left: number[] = [];

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 20 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-exec-background-'));
});
afterEach(async () => {
  // Whatever a failing test left: the test's to stop.
  for (const pid of left.splice(0)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The pids the command's background children wrote, one per line. */
function pids(file: string): number[] {
  const found = readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
  left.push(...found);
  return found;
}

/** Resolves once none of `pids` runs; rejects after `ms` with those still running. */
async function gone(list: number[], ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const running = list.filter((pid) => processAlive(pid));
    if (running.length === 0) return;
    if (Date.now() > until) throw new Error(`still running: ${running.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!LINUX.met)(needs(LINUX, 'process groups'), () => {
  it('files the answer of a command whose background child holds stdout, and leaves nothing running', async () => {
    const pidFile = join(dir, 'pids');
    // One child holds stdout for 60 s; one more also ignores SIGTERM (SIGKILL after the grace).
    const command = `(sleep 60 & echo $! >> "${pidFile}"); (trap '' TERM; sleep 60) & echo $! >> "${pidFile}"; echo "crm-$RFS_RECORDING_ID"`;
    const t = bufferIO({
      env: { RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base, PATH: process.env.PATH },
    });
    const argv = [
      'sync',
      '--exec',
      command,
      '--provider',
      'crm',
      '--journal',
      join(dir, 'journal.jsonl'),
      '-o',
      'ndjson',
      '--max-items',
      '1',
    ];
    // --exec-timeout 300 s (the default) is far beyond this test's own: only a kept answer passes.
    expect(await runCli(argv, t.io, { clock: fakeTime().clock })).toBe(0);
    const [result] = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean; externalId?: string });
    expect(result).toMatchObject({ ok: true, externalId: `crm-${result?.id}` });
    const detail = await h.api(`/recordings/${result?.id}`);
    expect((detail.json.data as { syncCount: number }).syncCount).toBe(1);
    const started = pids(pidFile);
    expect(started).toHaveLength(2);
    // SIGTERM at once, SIGKILL after 5 s for the one that ignores it.
    await gone(started, 15_000);
  }, 30_000);

  it('keeps the exit code and output of the command itself, and signals its group when it ends', async () => {
    const pidFile = join(dir, 'pids');
    const ran = await runCommand({
      command: `(sleep 60 & echo $! >> "${pidFile}"); echo answer; exit 0`,
      stdin: '{}\n',
      env: { PATH: process.env.PATH },
      timeoutMs: 120_000,
    });
    expect(ran).toMatchObject({ code: 0, timedOut: false, stdout: 'answer\n' });
    await gone(pids(pidFile), 10_000);
  });
});
