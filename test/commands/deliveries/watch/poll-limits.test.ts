// How watch's polling ends and fails (cli.md, deliveries: watch runs until Ctrl-C, SIGTERM or
// --max-time, exit 0 at --max-time; "a 429 slows it down and is shown"): --max-time stops a
// request in flight, a poll that meets a storm of 503s is said (`{"type":"poll-failed",…}`) and
// tried again within the budget, and the screen says while a poll's request is being retried.
// A scenario server on 127.0.0.1 answers; the clock is the real one, so the deadlines are.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { problem } from '../../../helpers/fixtures.js';
import { bufferIO } from '../../../helpers/io.js';
import { type ScenarioServer, type ScriptedResponse, startScenarioServer } from '../../../helpers/scenario-server.js';

let server: ScenarioServer;
let home: string;

beforeEach(async () => {
  server = await startScenarioServer();
  home = mkdtempSync(join(tmpdir(), 'rfs-watch-limits-'));
});
afterEach(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

const io = (tty = false) =>
  bufferIO({
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    env: {
      RFS_CONFIG_DIR: join(home, 'config'),
      XDG_STATE_HOME: join(home, 'state'),
      RFS_API_KEY: `service_pk_${'a'.repeat(32)}`,
      RFS_BASE_URL: server.url,
      NO_COLOR: '1',
    },
  });

const list = (status: string, data: unknown[] = []): ScriptedResponse => ({
  expect: { method: 'GET', url: new RegExp(`^/api/v1/webhooks/deliveries\\?status=${status}&subscriptionId=wh_1&`) },
  body: { data },
});
/** A 503 the client may try again at once (Retry-After: 0), so that a storm costs no real time. */
const unavailable = (): ScriptedResponse => {
  const p = problem(503, 'UNAVAILABLE', 'Service Unavailable');
  return { ...p, headers: { ...p.headers, 'retry-after': '0' } };
};

it('--max-time ends the run with exit 0 while a poll waits for a server that answers slowly', async () => {
  server.queue({ ...list('PENDING'), delayMs: 120_000 });
  const t = io();
  const started = Date.now();
  const code = await runCli(['deliveries', 'watch', '--subscription', 'wh_1', '--max-time', '1', '-o', 'ndjson'], t.io);
  expect(code).toBe(0);
  // The one request was sent, and abandoned at the deadline rather than waited for.
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]?.completed).toBe(false);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(t.stdout()).toBe('');
});

it('a poll that meets a storm of 503s is a poll-failed line; the next poll goes on, and --max-time ends it with 0', async () => {
  const delivery = { id: 'dlv_1', subscriptionId: 'wh_1', recordingId: 'rec_1' };
  const at = (ms: number) => new Date(Date.now() + ms).toISOString();
  server.queue(
    // The first poll: its first list gives up after 2 attempts.
    unavailable(),
    unavailable(),
    // The second poll answers: its lists are the baseline.
    list('PENDING', [{ ...delivery, status: 'PENDING', lastAttemptAt: at(0) }]),
    list('SUCCEEDED'),
    list('FAILED'),
    // The third: the delivery failed since.
    list('PENDING'),
    list('SUCCEEDED'),
    list('FAILED', [{ ...delivery, status: 'FAILED', lastAttemptAt: at(1000), lastError: 'HTTP 500' }]),
    // The fourth: the server hangs until --max-time.
    { ...list('PENDING'), delayMs: 120_000 },
  );
  const t = io();
  const code = await runCli(
    [
      'deliveries',
      'watch',
      '--subscription',
      'wh_1',
      '--interval',
      '0.5',
      '--budget',
      '120',
      '--max-retries',
      '1',
      '--max-time',
      '6',
      '-o',
      'ndjson',
    ],
    t.io,
  );
  expect(code).toBe(0);
  const lines = t
    .stdout()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines).toMatchObject([
    { type: 'poll-failed', status: 503, error: 'Service Unavailable' },
    { type: 'delivery', id: 'dlv_1', from: 'PENDING', to: 'FAILED', lastError: 'HTTP 500' },
  ]);
  expect(Date.parse(String(lines[0]?.time))).not.toBeNaN();
  expect(server.requests).toHaveLength(9);
  expect(server.requests.at(-1)?.completed).toBe(false);
});

it('a refusal that will not pass (401) still ends the run with its exit code', async () => {
  server.queue(problem(401, 'UNAUTHENTICATED', 'Invalid API key'));
  const t = io();
  const code = await runCli(['deliveries', 'watch', '--subscription', 'wh_1', '--max-time', '60', '-o', 'ndjson'], t.io);
  expect(code).toBe(3);
  expect(t.stdout()).toBe('');
});

it('the screen says that a poll is being retried, and --max-time ends it while a request hangs', async () => {
  const p = problem(503, 'UNAVAILABLE', 'Service Unavailable');
  server.queue(
    // The first poll's subscriptions: a 503 the client tries again after 1 s, then the answer.
    { ...p, headers: { ...p.headers, 'retry-after': '1' }, expect: { method: 'GET', url: /^\/api\/v1\/webhooks\?/ } },
    { expect: { method: 'GET', url: /^\/api\/v1\/webhooks\?/ }, body: { data: [], meta: { nextCursor: null } } },
    list('PENDING'),
    list('SUCCEEDED'),
    { ...list('FAILED'), delayMs: 120_000 },
  );
  const t = io(true);
  const started = Date.now();
  const code = await runCli(['deliveries', 'watch', '--subscription', 'wh_1', '--budget', '120', '--max-time', '3'], t.io);
  expect(code).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000);
  const frames = t.stdout().split('\u001b[?2026h');
  const retried = frames.findIndex((f) => f.includes('deliveries watch, retrying: HTTP 503, attempt 2; every'));
  expect(retried).toBeGreaterThan(0);
  // Once the request was answered, the top line is the pace again.
  expect(frames.slice(retried + 1).some((f) => f.includes('deliveries watch, every'))).toBe(true);
  expect(server.requests).toHaveLength(5);
});
