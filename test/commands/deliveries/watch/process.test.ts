// deliveries watch as a process (the built CLI), as an operator runs it (issue 30 items 3, 4, 7):
// SIGTERM and SIGHUP end it with 130 and a report that names the signal; against a server that
// returns 50 new deliveries with 20 KB errors in every list, its memory stays under 150 MB for
// 60 s, every error text it prints cut to 200 characters.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { RFS_BIN } from '../../../helpers/child.js';
import { LINUX, needs } from '../../../helpers/platform.js';
import { startFloodServer } from './flood-server.js';
import { until } from '../incident-support.js';

interface Child {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

const children: ChildProcess[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-watch-process-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGKILL');
      await gone;
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function rfs(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [RFS_BIN, ...args], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    // Only the tail is kept: a long run prints a lot.
    out = (out + c.toString('utf8')).slice(-100_000);
  });
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

describe.each([
  ['SIGTERM', 'terminated (SIGTERM): stopped before finishing'],
  ['SIGHUP', 'hung up (SIGHUP): stopped before finishing'],
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
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ title: report.replace(': stopped before finishing', ''), exitCode: 130 });
    expect(watch.stderr()).not.toContain('Ctrl-C)');
  });
});

it.skipIf(!LINUX.met)(
  needs(LINUX, 'stays under 150 MB for 60 s against a server with 50 new deliveries and 20 KB errors in every list'),
  async () => {
    const flood = await startFloodServer({ perList: 50, errorBytes: 20_000 });
    try {
      // Five times the default budget and the shortest interval: a poll of 7 lists every 7 s, each
      // list 50 new deliveries of 20 KB (about 60 MB read in the minute).
      const watch = rfs(['deliveries', 'watch', '--budget', '60', '--interval', '0.1', '--max-time', '60', '-o', 'ndjson'], {
        RFS_CONFIG_DIR: join(dir, 'config'),
        RFS_API_KEY: 'service_pk_flood_0123456789abcdef',
        RFS_BASE_URL: flood.url,
      });
      let peak = 0;
      const sample = setInterval(() => {
        try {
          const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${watch.child.pid}/status`, 'utf8'))?.[1];
          if (rss !== undefined) peak = Math.max(peak, Number(rss) * 1024);
        } catch {
          // Gone: the run is over.
        }
      }, 100);
      const code = await watch.exit;
      clearInterval(sample);
      expect(code).toBe(0);
      const { requests, deliveries } = flood.stats();
      // About 60 requests in the minute: the budget, spent (and 50 new deliveries in each list).
      expect(requests).toBeGreaterThan(45);
      expect(requests).toBeLessThanOrEqual(60 + 7);
      expect(deliveries).toBeGreaterThan(2000);
      // Each change line's error cut to 200 characters.
      const errors = watch
        .stdout()
        .split('\n')
        .slice(1, -1)
        .map((l) => (JSON.parse(l) as { lastError?: string }).lastError)
        .filter((e): e is string => e !== undefined);
      expect(errors.length).toBeGreaterThan(100);
      // The first poll is the baseline; every delivery after it is one line.
      for (const error of errors) expect(error).toMatch(/^\d+ x{190,196}…$/u);
      for (const error of errors) expect([...error]).toHaveLength(200);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(150 * 1024 * 1024);
    } finally {
      await flood.close();
    }
  },
  120_000,
);
