// The ages of watch's LATEST FAILURES move with the clock, not with the polls (cli.md, deliveries
// watch; one clock): polls can be a minute apart under the budget, and a failure's age must not
// read `2s ago` for that minute. The view, drawn in a terminal (stdout and stderr marked as
// one), against a sandbox with FAILED deliveries, polling once only (--interval 600): its
// drawings show a failure's age grow while the request log shows no second poll.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { Board } from '../../../../src/commands/deliveries/watch/board.js';
import { renderView } from '../../../../src/commands/deliveries/watch/render.js';
import { bufferIO } from '../../../helpers/io.js';
import { type IncidentSandbox, incidentSandbox, until } from '../incident-support.js';

let h: IncidentSandbox;
let home: string;

beforeAll(async () => {
  h = await incidentSandbox();
  home = mkdtempSync(join(tmpdir(), 'rfs-watch-ages-'));
});
afterAll(async () => {
  await h?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const START = Date.parse('2026-11-26T01:00:00Z');

it("renders a failure's age at the time of the drawing, not the poll's", () => {
  const board = new Board(START);
  const failure = {
    id: 'dlv_a1',
    status: 'FAILED',
    subscriptionId: 'wh_a',
    lastError: 'HTTP 503',
    lastAttemptAt: new Date(START - 2_000).toISOString(),
  };
  const byId = new Map([['wh_a', { id: 'wh_a', url: 'https://a.example/hook', events: ['recording.completed'] }]]);
  const state = board.update([{ status: 'FAILED', deliveries: [failure], full: false }], [], { byId, isDeleted: () => false }, START);
  const row = (now?: number) =>
    renderView({ board: state, selected: 0, pace: 'every 60 s', now }, { columns: 80, rows: 20 }).find((l) => l.includes('dlv_a1'));
  expect(row()).toMatch(/\s2s ago\s/);
  expect(row(START + 70_000)).toMatch(/\s1m ago\s/);
});

/** The frames drawn so far: each drawing is one synchronized update (it begins with ESC [?2026h). */
function frames(stdout: string): string[] {
  return stdout.split('\x1b[?2026h').slice(1);
}

/** The seconds of the first `Ns ago` in a drawing's LATEST FAILURES, or undefined. */
function age(frame: string): number | undefined {
  const seconds = /dlv_\w+\s+(\d+)s ago/.exec(frame)?.[1];
  return seconds === undefined ? undefined : Number(seconds);
}

it('redraws the ages between polls, on the one clock', async () => {
  await h.sandbox.control.clearRequests();
  const t = bufferIO({
    stdoutIsTTY: true,
    stderrIsTTY: true,
    env: {
      NO_COLOR: '1',
      XDG_STATE_HOME: join(home, 'state'),
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: h.sandbox.apiKeys.admin,
      RFS_BASE_URL: h.sandbox.baseUrl,
    },
  });
  const controller = new AbortController();
  const done = runCli(['deliveries', 'watch', '--interval', '600', '--budget', '120'], t.io, { signal: controller.signal });
  try {
    await until('a drawing with a failure and its age', () => frames(t.stdout()).some((f) => age(f) !== undefined), 15_000);
    const first = age(frames(t.stdout()).find((f) => age(f) !== undefined) ?? '') ?? Number.NaN;
    await until('a later drawing with the age grown', () => frames(t.stdout()).some((f) => (age(f) ?? 0) >= first + 2), 15_000);
  } finally {
    controller.abort();
  }
  expect(await done).toBe(130);
  // One poll only: the ages grew with the clock, not with a poll.
  const polls = (await h.sandbox.control.requests()).filter((r) => r.method === 'GET' && r.path === '/api/v1/webhooks/deliveries');
  expect(polls.length).toBeGreaterThan(0);
  const firstPoll = Math.min(...polls.map((r) => Date.parse(r.time)));
  expect(polls.every((r) => Date.parse(r.time) - firstPoll < 1_000)).toBe(true);
});
