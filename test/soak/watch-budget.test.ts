// watch's budget against the sandbox's limit, as processes (cli.md, deliveries, "watch's budget";
// the acceptance figure): the sandbox at its default 120 requests a minute per
// workspace, two `deliveries watch` at their defaults (the built CLI, off a terminal, ndjson, the
// sandbox's `webhooks` key) and one `sync --concurrency 4 --watch` (a fast command, the admin key)
// for 2 minutes, while recordings are completed through the control API. The witness is the
// sandbox's request log, which names the key of every request: the watches (key `webhooks`)
// together send at most 24 requests in any 60 s, and sync (key `admin`) gets no 429, nor waits
// for one.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import type { LoggedRequest } from '../../src/sandbox/request-log.js';
import { RFS_BIN } from '../helpers/child.js';
import { COMMAND, FIXTURE_ENV } from '../commands/sync/helpers.js';
import { api, until } from '../commands/deliveries/incident-support.js';

const RUN_MS = 120_000;
const WINDOW_MS = 60_000;

interface Child {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

const children: Child[] = [];
let dir: string;
let sandbox: RunningSandbox;
let receiver: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-watch-budget-'));
  // A receiver that answers 200, so that the recordings completed during the run are delivered.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  // The default limit (120 a minute per workspace), and the seeded recordings.
  sandbox = await startSandbox({ port: 0 });
});

afterAll(async () => {
  // Every child stopped by its pid: SIGTERM, then SIGKILL if it is still there 10 s later.
  for (const { child, exit } of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, 10_000);
    await exit;
    clearTimeout(timer);
  }
  await sandbox?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function rfs(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [RFS_BIN, ...args], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', RFS_CONFIG_DIR: join(dir, `config-${name}`), RFS_BASE_URL: sandbox.baseUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out = (out + c.toString('utf8')).slice(-200_000)));
  child.stderr?.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-200_000)));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const handle = { child, stdout: () => out, stderr: () => err, exit };
  children.push(handle);
  return handle;
}

/** The most entries whose times fall within any `windowMs` (a window starting at each entry). */
function mostInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

it('two watches at their defaults send at most 24 requests in any minute, and sync --concurrency 4 beside them gets no 429', async () => {
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await api(sandbox, 'POST', '/webhooks', { url: hook, events: ['recording.completed'] }, 'budget-hook');
  await sandbox.control.clearRequests();

  const started = Date.now();
  const watches = [1, 2].map((n) => rfs(`watch-${n}`, ['deliveries', 'watch', '-o', 'ndjson'], { RFS_API_KEY: sandbox.apiKeys.webhooks }));
  const sync = rfs(
    'sync',
    [
      'sync',
      '--exec',
      COMMAND,
      '--provider',
      'crm',
      '--journal',
      join(dir, 'journal.jsonl'),
      '--concurrency',
      '4',
      '--watch',
      '--interval',
      '10',
      '-o',
      'ndjson',
    ],
    { RFS_API_KEY: sandbox.apiKeys.admin, EXTERNAL_FILE: join(dir, 'external.jsonl'), RFS_EXEC_ENV: FIXTURE_ENV },
  );

  // Recordings to file during the run: one completed every 4 s through the control API (which
  // the request log and the rate limit leave out).
  let created = 0;
  while (Date.now() - started < RUN_MS) {
    await new Promise((resolve) => setTimeout(resolve, 4000));
    for (const c of [...watches, sync]) expect(c.child.exitCode, c.stderr()).toBeNull();
    const rec = await sandbox.control.createRecording({ title: `During the run ${created}`, status: 'REVIEW_PENDING' });
    await sandbox.control.setStatus(rec.id, 'COMPLETED');
    created += 1;
  }
  const log: LoggedRequest[] = await sandbox.control.requests();

  for (const c of [...watches, sync]) expect(c.child.exitCode, c.stderr()).toBeNull();
  // Each watch polled, and sync filed what it found (the seeded ones and some of the new ones).
  for (const w of watches) expect(w.stderr()).toContain('watching deliveries every');
  const filed = sync
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { ok?: boolean });
  expect(filed.length).toBeGreaterThanOrEqual(5);
  expect(filed.every((r) => r.ok === true)).toBe(true);

  const byWatches = log.filter((r) => r.key === 'webhooks');
  const bySync = log.filter((r) => r.key === 'admin');
  expect(log.filter((r) => r.key !== 'webhooks' && r.key !== 'admin')).toEqual([]);
  const most = mostInAnyWindow(
    byWatches.map((r) => Date.parse(r.time)),
    WINDOW_MS,
  );
  const first = Date.parse(log[0]?.time ?? '');
  const perMinute = [0, 1].map(
    (m) => byWatches.filter((r) => Date.parse(r.time) - first >= m * WINDOW_MS && Date.parse(r.time) - first < (m + 1) * WINDOW_MS).length,
  );
  console.log(
    `watches: ${byWatches.length} requests in all, ${perMinute.join(' and ')} in the two minutes, at most ${most} in any 60 s; ` +
      `sync: ${bySync.length} requests, ${filed.length} recordings filed; ${created} created during the run; ` +
      `429s: ${log.filter((r) => r.status === 429).length}`,
  );
  expect(byWatches.length).toBeGreaterThan(0);
  expect(most).toBeLessThanOrEqual(24);
  // No 429 at all for sync's key, and no wait for one in what it said.
  expect(bySync.length).toBeGreaterThan(0);
  expect(bySync.filter((r) => r.status === 429)).toEqual([]);
  expect(sync.stderr()).not.toMatch(/429/);
  // Nor for the watches: the workspace's limit was never reached.
  expect(byWatches.filter((r) => r.status === 429)).toEqual([]);

  // Stopped by pid: each ends as a SIGTERM ends it.
  for (const c of [...watches, sync]) {
    if (c.child.pid !== undefined) process.kill(c.child.pid, 'SIGTERM');
  }
  await until(
    'every child to exit',
    () => [...watches, sync].every((c) => c.child.exitCode !== null || c.child.signalCode !== null),
    30_000,
  );
}, 240_000);
