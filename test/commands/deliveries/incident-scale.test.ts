// The incident commands at incident scale: 55 FAILED deliveries of a
// live subscription in front of the 2 of a deleted one that rfs had seen. summary counts the
// deleted one's deliveries and flags every bound; a replay of one of them names the deletion;
// `--since 30m --error 503` on list, summary and `replay --all-failed --dry-run` is checked
// against the sandbox's attempt log (GET /_sandbox/deliveries/:id/attempts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { incidentAtScale, type ScaleIncident } from './incident-scale.js';

let h: ScaleIncident;
beforeAll(async () => {
  h = await incidentAtScale();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

async function rfs(args: string[], o: { tty?: boolean; columns?: number } = {}) {
  const t = bufferIO({ env: h.env(), stdoutIsTTY: o.tty, columns: o.columns ?? 80 });
  const code = await runCli(args, t.io, { clock: fakeTime(h.now).clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

interface Group {
  subscriptionId: string;
  url: string | null;
  exists: boolean;
  lastError: string | null;
  count: number;
  countIsLowerBound: boolean;
  oldestAttemptAt: string | null;
  oldestIsLowerBound: boolean;
  complete: boolean;
}

interface Attempt {
  at: string;
  responseStatus: number | null;
  error: string | null;
}

/** What the sandbox's attempt log says matches `--since 30m --error 503` at h.now: ids. */
async function matchingByLog(ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const res = await fetch(`${h.sandbox.baseUrl}/_sandbox/deliveries/${id}/attempts`);
    const { data } = (await res.json()) as { data: Attempt[] };
    const last = data[data.length - 1];
    if (last === undefined) continue;
    const recent = Date.parse(last.at) >= h.now - 30 * 60_000;
    const text = `${last.error ?? ''} ${last.responseStatus ?? ''}`;
    if (recent && text.includes('503')) out.push(id);
  }
  return out.sort();
}

describe('deliveries summary at incident scale', () => {
  it("counts the deleted subscription's FAILED deliveries behind a full list and flags every bound (json)", async () => {
    const r = await rfs(['deliveries', 'summary', '-o', 'json']);
    expect(r.code).toBe(8);
    const groups = JSON.parse(r.stdout) as Group[];
    const deleted = groups.filter((g) => g.subscriptionId === h.deleted);
    expect(deleted).toEqual([
      expect.objectContaining({
        exists: false,
        url: h.receiver.url.replace('/hook', '/old-hook'),
        lastError: 'HTTP 503',
        count: 2,
        countIsLowerBound: false,
        oldestIsLowerBound: false,
        complete: true,
        oldestAttemptAt: new Date(h.now - 25 * 60_000 - 30_000).toISOString(),
      }),
    ]);
    const live = groups.filter((g) => g.subscriptionId === h.live);
    expect(live.map((g) => g.lastError).sort()).toEqual(['HTTP 500', 'HTTP 503', 'connect ECONNREFUSED 127.0.0.1:9']);
    for (const g of live) {
      expect(g).toMatchObject({ exists: true, countIsLowerBound: true, oldestIsLowerBound: true, complete: false });
    }
    // The live subscription's full list: its 50 rows, no more, no fewer.
    expect(live.reduce((n, g) => n + g.count, 0)).toBe(50);
    // ndjson: the same groups, one a line, the same flags.
    const nd = await rfs(['deliveries', 'summary', '-o', 'ndjson']);
    expect(
      nd.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Group),
    ).toEqual(groups);
  });

  it("shows a 50+ group's OLDEST as a bound and the deleted subscription as such (table, 120 columns)", async () => {
    const r = await rfs(['deliveries', 'summary'], { tty: true, columns: 120 });
    expect(r.code).toBe(8);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/ {2,}/));
    expect(rows[0]).toEqual(['SUBSCRIPTION', 'STATUS', 'COUNT', 'LAST ERROR', 'OLDEST', 'NEWEST', 'URL']);
    const deleted = rows.find((row) => row[0] === h.deleted);
    expect(deleted).toEqual([h.deleted, 'FAILED', '2', 'HTTP 503', '25m ago', '24m ago', '(deleted)']);
    for (const row of rows.filter((row) => row[0] === h.live)) {
      expect(row[2]).toMatch(/^\d+\+$/);
      expect(row[4]).toMatch(/^before \d+m ago$/);
    }
    expect(r.stderr).toContain(`subscription ${h.deleted} was deleted: its FAILED deliveries cannot be replayed`);
  });
});

describe('deliveries replay of a deleted subscription behind a full FAILED list', () => {
  it('names the deletion instead of a bare 404', async () => {
    const id = h.failed.deleted[0] ?? '';
    const r = await rfs(['deliveries', 'replay', id, '-o', 'ndjson']);
    expect(r.code).toBe(8);
    const line = JSON.parse(r.stdout) as { id: string; ok: boolean; error: { status: number; code: string; title: string } };
    expect(line).toMatchObject({ id, ok: false });
    expect(line.error).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
    expect(line.error.title).toBe(`subscription ${h.deleted} was deleted: its deliveries cannot be replayed`);
    const table = await rfs(['deliveries', 'replay', id]);
    expect(table.stdout + table.stderr).toContain(`subscription ${h.deleted} was deleted`);
  });
});

describe('--since 30m --error 503, checked against the attempt log', () => {
  it('deliveries list shows only matching deliveries, reaches the deleted subscription and says it may be incomplete', async () => {
    const truth = await matchingByLog([...h.failed.live, ...h.failed.deleted]);
    const r = await rfs(['deliveries', 'list', '--status', 'FAILED', '--since', '30m', '--error', '503', '-o', 'json']);
    expect(r.code).toBe(0);
    const shown = (JSON.parse(r.stdout) as { id: string }[]).map((d) => d.id).sort();
    for (const id of shown) expect(truth).toContain(id);
    // Both of the deleted subscription's, found behind the full list through the remembered id.
    for (const id of h.failed.deleted) expect(shown).toContain(id);
    // What the list could not reach: only the live subscription's oldest, behind its own full list.
    const missed = truth.filter((id) => !shown.includes(id));
    const oldestLive = h.failed.live.slice(0, h.failed.live.length - 50);
    for (const id of missed) expect(oldestLive).toContain(id);
    expect(missed.length).toBeGreaterThan(0);
    expect(r.stderr).toContain(`may be incomplete: the FAILED list of ${h.live} came back full`);
  });

  it('deliveries summary counts only matching deliveries, each group flagged where it may be incomplete', async () => {
    const truth = await matchingByLog([...h.failed.live, ...h.failed.deleted]);
    const r = await rfs(['deliveries', 'summary', '--since', '30m', '--error', '503', '-o', 'json']);
    expect(r.code).toBe(8);
    const groups = JSON.parse(r.stdout) as Group[];
    expect(groups.map((g) => [g.subscriptionId, g.lastError])).toEqual([
      [h.live, 'HTTP 503'],
      [h.deleted, 'HTTP 503'],
    ]);
    const [live, deleted] = groups as [Group, Group];
    expect(deleted).toMatchObject({ count: 2, complete: true, countIsLowerBound: false });
    const liveTruth = truth.filter((id) => h.failed.live.includes(id)).length;
    expect(live.count).toBeLessThan(liveTruth);
    expect(live).toMatchObject({ countIsLowerBound: true, oldestIsLowerBound: true, complete: false });
    expect(r.stderr).toContain('may be incomplete');
  });

  it('replay --all-failed --dry-run lists only matching deliveries of live subscriptions and leaves out the deleted', async () => {
    const truth = await matchingByLog(h.failed.live);
    await h.sandbox.control.clearRequests();
    const r = await rfs(['deliveries', 'replay', '--all-failed', '--dry-run', '--since', '30m', '--error', '503', '-o', 'json']);
    expect(r.code).toBe(0);
    const listed = (JSON.parse(r.stdout) as { id: string }[]).map((d) => d.id).sort();
    expect(listed.length).toBeGreaterThan(0);
    for (const id of listed) expect(truth).toContain(id);
    for (const id of h.failed.deleted) expect(listed).not.toContain(id);
    expect(r.stderr).toContain(`${listed.length} FAILED deliveries would be replayed (dry run: nothing sent)`);
    expect(r.stderr).toContain('may be incomplete');
    expect(await h.sandbox.control.requests()).not.toContainEqual(expect.objectContaining({ method: 'POST' }));
  });

  it('refuses --since later than --until, and a filter on a replay by id, before sending anything', async () => {
    const r = await rfs(['deliveries', 'list', '--since', '1h', '--until', '2h']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--since is later than --until');
    const byId = await rfs(['deliveries', 'replay', 'dlv_x', '--error', '503']);
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain('--since, --until and --error go with --all-failed');
  });
});
