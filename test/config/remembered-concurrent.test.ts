// The remembered subscriptions (config/remembered-subscriptions.ts) with more than one rfs at
// once, and with a file no rfs wrote: two processes saving at the same moment lose nothing (the
// merge runs under a lock), and a file of 2,000 entries is bounded to the newest 100 on read.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS, RememberedSubscriptions } from '../../src/config/remembered-subscriptions.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-remembered-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const workspace = { baseUrl: 'http://127.0.0.1:4010', profile: 'default' };

it('two processes saving at once keep every id each of them saw', async () => {
  // A process of its own per writer: the lock is a file, as between two rfs runs.
  const script = join(dir, 'saver.mjs');
  await build({
    stdin: {
      contents: `import { RememberedSubscriptions } from ${JSON.stringify(fileURLToPath(new URL('../../src/config/remembered-subscriptions.ts', import.meta.url)))};
const [prefix, n] = process.argv.slice(2);
for (let i = 0; i < Number(n); i++) {
  const memory = RememberedSubscriptions.open(process.env, ${JSON.stringify(workspace)}, () => Date.now());
  memory.saw([{ id: prefix + String(i).padStart(3, '0'), url: null }]);
  if (!(await memory.save())) process.exit(3);
}`,
      resolveDir: dir,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: script,
    logLevel: 'silent',
  });
  const run = (prefix: string) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [script, prefix, '40'], {
        env: { PATH: process.env.PATH, XDG_STATE_HOME: dir },
        stdio: 'ignore',
      });
      child.on('exit', resolve);
    });
  expect(await Promise.all([run('wh_a'), run('wh_b')])).toEqual([0, 0]);
  const ids = RememberedSubscriptions.open({ XDG_STATE_HOME: dir }, workspace, Date.now)
    .all()
    .map((s) => s.id)
    .sort();
  expect(ids).toHaveLength(80);
  expect(ids.filter((id) => id.startsWith('wh_a'))).toHaveLength(40);
}, 60_000);

it('reads at most the newest 100 of a file of 2,000 entries', () => {
  const subscriptions = Array.from({ length: 2000 }, (_, i) => ({
    id: `wh_${String(i).padStart(4, '0')}`,
    url: null,
    seenAt: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
  }));
  const key = `${workspace.baseUrl} ${workspace.profile}`;
  const file = join(dir, 'rfs', 'subscriptions.json');
  rmSync(join(dir, 'rfs'), { recursive: true, force: true });
  mkdirSync(join(dir, 'rfs'), { recursive: true });
  writeFileSync(file, JSON.stringify({ version: 1, workspaces: { [key]: { usedAt: '2026-11-28T00:00:00Z', subscriptions } } }));
  const memory = RememberedSubscriptions.open({ XDG_STATE_HOME: dir }, workspace, Date.now);
  const all = memory.all();
  expect(all).toHaveLength(MAX_SUBSCRIPTIONS);
  expect(all[0]?.id).toBe('wh_1999');
  expect(all.at(-1)?.id).toBe('wh_1900');
});
