// One journal, two hosts (release.md, "the journal's lock, which records the host that holds
// it"): two built `rfs sync` processes on one journal, each in a UTS namespace of its own
// (`unshare -u`) with its own hostname, as two pods mounting one volume would be. The second is
// refused, naming the first's host and its own; the first goes on holding the journal.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN, type SandboxProcess, startSandboxProcess } from '../../helpers/child.js';

const STEP_TIMEOUT_MS = 60_000;
let sandbox: SandboxProcess;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--recordings', '2']);
  dir = mkdtempSync(join(tmpdir(), 'rfs-journal-host-'));
}, STEP_TIMEOUT_MS);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `rfs sync …` as the built CLI, in a UTS namespace whose hostname is `host`. */
function syncOn(host: string, args: string[]) {
  const child = spawn('unshare', ['-u', 'sh', '-c', `hostname "$0" && exec "$@"`, host, process.execPath, RFS_BIN, 'sync', ...args], {
    env: {
      PATH: process.env.PATH,
      RFS_CONFIG_DIR: join(dir, `config-${host}`),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('rfs sync: the journal lock across hosts', () => {
  it(
    'a second sync on another host is refused with both hosts named; the first keeps the journal',
    async () => {
      const journal = join(dir, 'journal.jsonl');
      const lock = `${journal}.lock`;
      const common = ['--exec', 'echo "crm-$RFS_RECORDING_ID"', '--provider', 'crm', '--journal', journal];
      const first = syncOn('rfs-sync-alpha', [...common, '--watch', '--interval', '3600']);
      await until(
        () => existsSync(lock) && readFileSync(lock, 'utf8').includes('host=rfs-sync-alpha\n'),
        'the first sync to take the lock',
      );

      const second = syncOn('rfs-sync-beta', common);
      expect(await second.exited).toBe(2);
      expect(second.stderr()).toMatch(
        /another rfs sync \(pid \d+ on host rfs-sync-alpha\) is using the journal .*journal\.jsonl; this is host rfs-sync-beta/,
      );
      expect(second.stderr()).toContain('stop the one on rfs-sync-alpha');
      // The refused one took nothing: the lock is still the first's, and the first still runs.
      expect(readFileSync(lock, 'utf8')).toContain('host=rfs-sync-alpha\n');
      expect(first.child.exitCode).toBeNull();

      // Stopped between passes (exit 0); a SIGTERM during its first pass, on a loaded machine, cuts it short (130).
      await until(() => first.stderr().includes('pass done'), 'the first sync to finish its pass');
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(existsSync(lock)).toBe(false);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "this host's lock of an earlier boot: refused while its holder refreshes it, taken over once it has stopped",
    async () => {
      const journal = join(dir, 'rebooted.jsonl');
      const lock = `${journal}.lock`;
      // Its pid is alive here (this test's): were the boot ignored, the pid rule would keep it.
      const earlierBoot = [
        String(process.pid),
        '2026-11-28T10:00:00.000Z',
        `host=${hostname()}`,
        'boot=00000000-0000-4000-8000-000000000000',
        `pidns=${readlinkSync('/proc/self/ns/pid')}`,
        '',
      ].join('\n');
      writeFileSync(lock, earlierBoot);
      const common = ['--exec', 'echo "crm-$RFS_RECORDING_ID"', '--provider', 'crm', '--journal', journal, '--max-items', '1'];
      const fresh = syncOn(hostname(), common);
      expect(await fresh.exited).toBe(2);
      expect(fresh.stderr()).toContain(`another rfs sync (pid ${process.pid} on host ${hostname()}) is using the journal`);
      expect(readFileSync(lock, 'utf8')).toBe(earlierBoot);

      const untouched = new Date(Date.now() - 120_000);
      utimesSync(lock, untouched, untouched);
      const taken = syncOn(hostname(), common);
      expect(await taken.exited).toBe(0);
      expect(taken.stderr()).not.toContain('another rfs sync');
      // The pass ran and released its own lock: nothing of the earlier boot's is left.
      expect(existsSync(lock)).toBe(false);
    },
    STEP_TIMEOUT_MS,
  );
});
