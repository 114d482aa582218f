// One journal, two hosts (release.md, "the journal's lock, which records the host that holds
// it"): two built `rfs sync` processes on one journal, each in a UTS namespace of its own
// (`unshare -u`) with its own hostname, as two pods mounting one volume would be. The second is
// refused, naming the first's host and its own; the first goes on holding the journal.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(existsSync(lock)).toBe(false);
    },
    STEP_TIMEOUT_MS,
  );
});
