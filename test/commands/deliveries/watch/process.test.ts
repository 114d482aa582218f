// deliveries watch as a process (the built CLI), as an operator runs it: SIGTERM and SIGHUP end it
// with 130 and a report that names the signal (cli.md, exit codes). Its memory over a minute is a
// soak test (test/soak/watch-memory.test.ts).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { killAll, spawnRfs } from '../../../helpers/child.js';
import { until } from '../incident-support.js';

const children: ChildProcess[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-watch-process-'));
});
afterEach(async () => {
  await killAll(children);
  rmSync(dir, { recursive: true, force: true });
});

const rfs = (args: string[], env: NodeJS.ProcessEnv) => spawnRfs(args, env, children);

describe.each([
  // A watch runs until it is stopped: "watch stopped", never "stopped before finishing".
  ['SIGTERM', 'terminated (SIGTERM): watch stopped'],
  ['SIGHUP', 'hung up (SIGHUP): watch stopped'],
] as const)('deliveries watch stopped by %s', (signal, report) => {
  let sandbox: RunningSandbox;
  beforeEach(async () => {
    sandbox = await startSandbox({ port: 0, recordings: 0, rateLimit: 0 });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('exits 130 and names the signal, never Ctrl-C', async () => {
    const watch = rfs(['deliveries', 'watch', '-o', 'ndjson'], {
      RFS_CONFIG_DIR: join(dir, 'config'),
      RFS_API_KEY: sandbox.apiKeys.webhooks,
      RFS_BASE_URL: sandbox.baseUrl,
    });
    await until('the first poll', () => watch.stderr().includes('watching deliveries every'), 20_000);
    watch.child.kill(signal);
    expect(await watch.exit).toBe(130);
    const lines = watch
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.at(-2)).toBe(report);
    // -o ndjson: the problem too, with the same words.
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ title: report.replace(': watch stopped', ''), exitCode: 130 });
    expect(watch.stderr()).not.toContain('Ctrl-C)');
  });
});
