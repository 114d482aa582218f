// The incident kit against `rfs sandbox --scenario incident` ("What it must show"):
// `summary` json with every bound flagged and the deleted subscription's FAILED deliveries
// present, a replay of one of them naming the deletion, and `--since 30m --error 503` on list,
// summary and `replay --all-failed --dry-run` checked against the attempt log.
//
// The scenario deleted its `deleted` subscription before rfs ever ran: rfs knows of it only as
// an operator's rfs would, from having seen it earlier (`webhooks create`, `webhooks list`,
// `listen --subscribe`). The memory is written here as such a run would have left it; without
// it rfs cannot tell that those deliveries exist (the last test says so).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { RememberedSubscriptions } from '../../../src/config/remembered-subscriptions.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { bufferIO } from '../../helpers/io.js';

let sandbox: RunningSandbox;
let home: string;
let ids: Record<string, string>;
let deletedUrl: string;
/** Every delivery of the scenario: id, subscription and status, as exported at the start. */
let all: { id: string; subscriptionId: string; status: string }[];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-scenario-'));
  const receivers = sandbox.scenario?.receivers ?? [];
  ids = Object.fromEntries(receivers.map((r) => [r.name, r.subscriptionId]));
  deletedUrl = receivers.find((r) => r.name === 'deleted')?.url ?? '';
  all = (await sandbox.control.exportState()).deliveries.map((d) => ({ id: d.id, subscriptionId: d.subscriptionId, status: d.status }));
  const memory = RememberedSubscriptions.open(env(), { baseUrl: sandbox.baseUrl, profile: 'default' }, Date.now);
  memory.saw([{ id: ids.deleted ?? '', url: deletedUrl }]);
  expect(await memory.save()).toBe(true);
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    NO_COLOR: '1',
    TZ: 'UTC',
    XDG_STATE_HOME: join(home, 'state'),
    RFS_CONFIG_DIR: join(home, 'config'),
    RFS_API_KEY: sandbox.apiKeys.admin,
    RFS_BASE_URL: sandbox.baseUrl,
    ...extra,
  };
}

async function rfs(args: string[], extra: NodeJS.ProcessEnv = {}) {
  const t = bufferIO({ env: env(extra) });
  const code = await runCli(args, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

interface Group {
  subscriptionId: string;
  exists: boolean;
  status: string;
  lastError: string | null;
  count: number;
  countIsLowerBound: boolean;
  oldestIsLowerBound: boolean;
  complete: boolean;
}

interface Attempt {
  at: string;
  responseStatus: number | null;
  error: string | null;
}

async function lastAttempt(id: string): Promise<Attempt | undefined> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/deliveries/${id}/attempts`);
  const { data } = (await res.json()) as { data: Attempt[] };
  return data[data.length - 1];
}

/** True when the attempt log says `id` matches --since 30m --error 503 at `at` (a few seconds' grace). */
async function matchesByLog(id: string, at: number): Promise<boolean> {
  const last = await lastAttempt(id);
  if (last === undefined) return false;
  const text = `${last.error ?? ''} HTTP ${last.responseStatus ?? ''}`;
  return Date.parse(last.at) >= at - 30 * 60_000 - 5000 && text.includes('503');
}

describe('rfs deliveries against --scenario incident', () => {
  it("summary json: the deleted subscription's FAILED deliveries present, every bound flagged", async () => {
    const r = await rfs(['deliveries', 'summary', '-o', 'json']);
    expect(r.code).toBe(8);
    const groups = JSON.parse(r.stdout) as Group[];
    const deleted = groups.filter((g) => g.subscriptionId === ids.deleted);
    expect(deleted.length).toBeGreaterThan(0);
    for (const g of deleted) expect(g).toMatchObject({ exists: false, status: 'FAILED' });
    // The deleted subscription's own FAILED list is full too (76 in the scenario): its newest 50, flagged.
    const deletedFailed = all.filter((d) => d.subscriptionId === ids.deleted && d.status === 'FAILED').length;
    expect(deletedFailed).toBeGreaterThan(50);
    expect(deleted.reduce((n, g) => n + g.count, 0)).toBe(50);
    for (const g of deleted) expect(g).toMatchObject({ countIsLowerBound: true, oldestIsLowerBound: true, complete: false });
    // The failing subscription's FAILED list is full: each of its groups is a bound, said so.
    const failing = groups.filter((g) => g.subscriptionId === ids.failing && g.status === 'FAILED');
    expect(failing.length).toBeGreaterThan(1);
    for (const g of failing) expect(g).toMatchObject({ exists: true, countIsLowerBound: true, oldestIsLowerBound: true, complete: false });
    expect(failing.reduce((n, g) => n + g.count, 0)).toBe(50);
  });

  it('replay <id of a deleted subscription’s delivery> names the deletion', async () => {
    const ofDeleted = all.filter((d) => d.subscriptionId === ids.deleted && d.status === 'FAILED');
    // The newest: listed behind the full FAILED list, found through the remembered subscription.
    const newest = ofDeleted[ofDeleted.length - 1]?.id ?? '';
    const r = await rfs(['deliveries', 'replay', newest, '-o', 'ndjson']);
    expect(r.code).toBe(8);
    const line = JSON.parse(r.stdout) as { ok: boolean; error: { status: number; title: string } };
    expect(line.ok).toBe(false);
    expect(line.error.status).toBe(404);
    expect(line.error.title).toBe(`subscription ${ids.deleted} was deleted: its deliveries cannot be replayed`);
    // The oldest: beyond every list the API gives, so only what it may be, not as a fact.
    const oldest = await rfs(['deliveries', 'replay', ofDeleted[0]?.id ?? '', '-o', 'ndjson']);
    const old = JSON.parse(oldest.stdout) as { error: { status: number; title: string } };
    expect(old.error.status).toBe(404);
    expect(old.error.title).toBe(
      `Resource not found: no list shows this delivery; it may be a delivery of a deleted subscription, which the service keeps listing but cannot replay; the FAILED list and the FAILED list of ${ids.deleted} (deleted) came back full, and the API lists only the newest 50`,
    );
  });

  it('--since 30m --error 503 on list, summary and replay --all-failed --dry-run: every delivery shown matches the attempt log', async () => {
    const at = Date.now();
    const list = await rfs(['deliveries', 'list', '--status', 'FAILED', '--since', '30m', '--error', '503', '-o', 'json']);
    expect(list.code).toBe(0);
    const listed = (JSON.parse(list.stdout) as { id: string }[]).map((d) => d.id);
    expect(listed.length).toBeGreaterThan(0);
    for (const id of listed) expect(await matchesByLog(id, at), id).toBe(true);
    expect(list.stderr).toContain('may be incomplete');

    const summary = await rfs(['deliveries', 'summary', '--since', '30m', '--error', '503', '-o', 'json']);
    const groups = JSON.parse(summary.stdout) as Group[];
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(`${g.lastError}`).toContain('503');
    expect(groups.some((g) => g.complete === false && g.countIsLowerBound)).toBe(true);

    const dry = await rfs(['deliveries', 'replay', '--all-failed', '--dry-run', '--since', '30m', '--error', '503', '-o', 'json']);
    expect(dry.code).toBe(0);
    const replayable = (JSON.parse(dry.stdout) as { id: string; subscriptionId: string }[]).map((d) => d);
    expect(replayable.length).toBeGreaterThan(0);
    for (const d of replayable) {
      expect(d.subscriptionId).not.toBe(ids.deleted);
      expect(await matchesByLog(d.id, at), d.id).toBe(true);
    }
    expect(dry.stderr).toMatch(/\d+ FAILED deliver(y|ies) would be replayed \(dry run: nothing sent\)/);
  });

  it('without the remembered subscription, the deleted one stays hidden behind the full list', async () => {
    const r = await rfs(['deliveries', 'summary', '-o', 'json'], { XDG_STATE_HOME: join(home, 'elsewhere') });
    const groups = JSON.parse(r.stdout) as Group[];
    expect(groups.filter((g) => g.subscriptionId === ids.deleted)).toEqual([]);
  });
});
