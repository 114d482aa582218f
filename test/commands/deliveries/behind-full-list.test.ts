// A live subscription's FAILED deliveries behind a full list of a deleted one's (docs/incidents.md,
// "At incident scale": "A list that came back full is listed again per subscription, so one busy
// subscription does not hide the others"). `rfs sandbox --scenario incident`, recovered, with
// every FAILED delivery of `failing` replayed but its two oldest: the workspace's FAILED list is
// then 50 rows of the deleted subscription's 76, and the two sit behind it. summary, doctor and
// `replay --all-failed` must all find them, and count the deleted subscription's deliveries as
// the lower bound they are (`50+`, cli.md, "rfs never shows a bound as a fact").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { bufferIO } from '../../helpers/io.js';
import { until } from './incident-support.js';

let sandbox: RunningSandbox;
let home: string;
let ids: Record<string, string>;
/** The two FAILED deliveries of `failing` left behind the full list. */
let behind: string[];

const get = async (path: string): Promise<unknown> => {
  const response = await fetch(`${sandbox.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${sandbox.apiKeys.admin}` } });
  if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
  return response.json();
};

const statusOf = async (): Promise<Map<string, string>> =>
  new Map((await sandbox.control.exportState()).deliveries.map((d) => [d.id, d.status]));

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-behind-full-'));
  ids = Object.fromEntries((sandbox.scenario?.receivers ?? []).map((r) => [r.name, r.subscriptionId]));
  const recovered = await fetch(`${sandbox.baseUrl}/_sandbox/receivers/failing`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'ok' }),
  });
  expect(recovered.status).toBe(200);
  // Every FAILED delivery of `failing`, oldest first; all but the two oldest replayed by the API itself.
  const failed = (await sandbox.control.exportState()).deliveries
    .filter((d) => d.subscriptionId === ids.failing && d.status === 'FAILED')
    .sort((a, b) => a.createdAt - b.createdAt);
  expect(failed.length).toBeGreaterThan(52);
  behind = failed.slice(0, 2).map((d) => d.id);
  const replayed = failed.slice(2).map((d) => d.id);
  for (const id of replayed) {
    const response = await fetch(`${sandbox.baseUrl}/api/v1/webhooks/deliveries/${id}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKeys.admin}` },
    });
    expect(response.status).toBe(202);
  }
  await until(
    'the replayed deliveries SUCCEEDED',
    async () => {
      const status = await statusOf();
      return replayed.every((id) => status.get(id) === 'SUCCEEDED');
    },
    30_000,
  );
  // The premise: the workspace's FAILED list is full, and shows neither of the two.
  const listed = ((await get('/webhooks/deliveries?status=FAILED&limit=50')) as { data: { id: string; subscriptionId: string }[] }).data;
  expect(listed).toHaveLength(50);
  expect(listed.every((d) => d.subscriptionId === ids.deleted)).toBe(true);
  expect(listed.map((d) => d.id)).not.toContain(behind[0]);
  expect(listed.map((d) => d.id)).not.toContain(behind[1]);
  await sandbox.control.clearRequests();
}, 90_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A first run each time (nothing remembered): what an operator new to the incident gets. */
let runs = 0;
async function rfs(args: string[]) {
  runs += 1;
  const t = bufferIO({
    env: {
      NO_COLOR: '1',
      XDG_STATE_HOME: join(home, `state-${runs}`),
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
  });
  const code = await runCli(args, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr().replace(/\s*\n\s*/g, ' ') };
}

interface DoctorRow {
  check: string;
  result: string;
  detail: string;
  found?: unknown;
}

async function doctorFailed() {
  const { stdout } = await rfs(['doctor', '-o', 'json']);
  return (JSON.parse(stdout) as DoctorRow[]).find((r) => r.check === 'failed-deliveries');
}

describe('FAILED deliveries of a live subscription behind a full list of a deleted one', () => {
  it('summary shows them', async () => {
    const { code, stdout } = await rfs(['deliveries', 'summary', '-o', 'json']);
    expect(code).toBe(8);
    const groups = JSON.parse(stdout) as { subscriptionId: string; status: string; count: number; countIsLowerBound: boolean }[];
    const failing = groups.filter((g) => g.subscriptionId === ids.failing && g.status === 'FAILED');
    expect(failing.reduce((n, g) => n + g.count, 0)).toBe(2);
    expect(failing.every((g) => !g.countIsLowerBound)).toBe(true);
  });

  it('doctor counts them waiting, and the deleted subscription apart as 50+, naming the command that reaches a hidden one', async () => {
    const row = await doctorFailed();
    expect(row?.result).toBe('warn');
    expect(row?.found).toEqual({
      waiting: 2,
      waitingIsLowerBound: false,
      ofDeletedSubscriptions: [{ subscriptionId: ids.deleted, count: 50, countIsLowerBound: true }],
      othersMayBeHidden: true,
    });
    expect(row?.detail).toMatch(
      new RegExp(
        `^2 waiting \\(see rfs deliveries summary; rfs deliveries replay --all-failed\\); apart from those, 50\\+ of deleted subscription ${ids.deleted} \\(the service cannot replay them\\)`,
      ),
    );
    // doctor has no --subscription of its own.
    expect(row?.detail).toMatch(/name one with rfs deliveries summary --subscription <id>$/);
  });

  it('replay --all-failed --dry-run lists them, and the deleted subscription as 50+ left out', async () => {
    const { code, stdout, stderr } = await rfs(['deliveries', 'replay', '--all-failed', '--dry-run', '-o', 'json']);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { id: string }[]).map((d) => d.id).sort()).toEqual([...behind].sort());
    expect(stderr).toContain('2 FAILED deliveries would be replayed (dry run: nothing sent)');
    expect(stderr).toContain(`50+ FAILED deliveries left out: subscription ${ids.deleted} was deleted (the service cannot replay them)`);
  });

  it('replay --all-failed --yes replays exactly them, says nothing is left, and doctor then finds none waiting', async () => {
    await sandbox.control.clearRequests();
    const { code, stdout, stderr } = await rfs(['deliveries', 'replay', '--all-failed', '--yes', '-o', 'ndjson']);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean });
    expect(lines.map((l) => l.id).sort()).toEqual([...behind].sort());
    expect(lines.every((l) => l.ok)).toBe(true);
    const posts = (await sandbox.control.requests()).filter((r) => r.method === 'POST').map((r) => r.path.split('/')[5]);
    expect(posts.sort()).toEqual([...behind].sort());
    // What the lists showed: every live subscription's list, none full; never "now shows only deliveries this run replayed".
    expect(stderr).toContain(
      `2 replayed, 0 failed; 1 round; no FAILED delivery is left that this run has not replayed; 50+ FAILED deliveries left out: subscription ${ids.deleted} was deleted (the service cannot replay them)`,
    );

    await until('both SUCCEEDED', async () => {
      const status = await statusOf();
      return behind.every((id) => status.get(id) === 'SUCCEEDED');
    });
    const after = await rfs(['deliveries', 'replay', '--all-failed', '--yes']);
    expect(after.code).toBe(0);
    expect(after.stderr).toContain(
      `nothing to replay: 50+ FAILED deliveries left out: subscription ${ids.deleted} was deleted (the service cannot replay them)`,
    );
    const row = await doctorFailed();
    expect(row?.result).toBe('ok');
    expect(row?.detail).toMatch(
      new RegExp(`^none waiting; FAILED too, but the service cannot replay them: 50\\+ of deleted subscription ${ids.deleted};`),
    );
    expect(row?.found).toMatchObject({ waiting: 0, waitingIsLowerBound: false });
  });
});
