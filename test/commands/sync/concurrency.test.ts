// rfs sync --concurrency, streaming and --order through the whole CLI against the in-process
// sandbox, with the sandbox's request log (GET /_sandbox/requests) as the witness of what was
// asked and when. How long a pass takes is for bench/sync-concurrency.mjs, not for a test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { LoggedRequest } from '../../../src/sandbox/request-log.js';
import { type FakeTime, fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, counts, externalRecords, journalSteps, syncEnv } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-sync-conc-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function sync(h: Harness, extra: string[], command = COMMAND, env: NodeJS.ProcessEnv = {}) {
  const t = bufferIO({
    env: syncEnv(h, dir, env),
  });
  const argv = ['sync', '--exec', command, '--provider', 'crm', '--journal', join(dir, 'journal.jsonl'), '-o', 'ndjson', ...extra];
  return { t, run: () => runCli(argv, t.io, { clock: fakeTime().clock }) };
}

const isList = (r: LoggedRequest): boolean => r.method === 'GET' && /\/recordings$/.test(r.path);
const isFetch = (r: LoggedRequest): boolean => r.method === 'GET' && /\/recordings\/[^/]+$/.test(r.path);
const isFiling = (r: LoggedRequest): boolean => r.method === 'POST' && /\/filings$/.test(r.path);

describe('rfs sync --max-items over a 100,000-recording backlog', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await start({ rateLimit: 0, recordings: 100_000 });
  }, 60_000);
  afterAll(async () => {
    await h.close();
  });

  it('--max-items 2 sends one list request, then a fetch and a filing for each of the two', async () => {
    await h.sandbox.control.clearRequests();
    const { t, run } = sync(h, ['--max-items', '2']);
    expect(await run()).toBe(0);
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean });
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    const log = await h.sandbox.control.requests();
    expect(log.filter(isList)).toHaveLength(1);
    expect(log.filter(isFetch).map((r) => r.path.split('/').at(-1))).toEqual(results.map((r) => r.id));
    expect(log.filter(isFiling)).toHaveLength(2);
    expect(log).toHaveLength(5);
  });
});

describe('rfs sync --concurrency and --order', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start({ rateLimit: 0, recordings: 10 });
  });
  afterEach(async () => {
    await h.close();
  });

  async function unsynced(): Promise<{ id: string; priority: string; createdAt: string }[]> {
    return (await h.api('/recordings?limit=100')).json.data;
  }

  it('runs up to n commands at once: each recording filed once, one whole result line and whole journal lines each', async () => {
    const ids = (await unsynced()).map((r) => r.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    const log = join(dir, 'commands.log');
    // The first command waits until a second one has started: only commands that run side by
    // side get past it. Then the fixture creates and prints the record.
    const command = `echo "start $RFS_RECORDING_ID" >> "${log}"; n=0; while [ "$(grep -c start "${log}")" -lt 2 ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done; ${COMMAND}; s=$?; echo "end $RFS_RECORDING_ID" >> "${log}"; exit $s`;
    const { t, run } = sync(h, ['--concurrency', '4'], command);
    expect(await run()).toBe(0);

    const events = readFileSync(log, 'utf8').trim().split('\n');
    let running = 0;
    let most = 0;
    for (const e of events) {
      running += e.startsWith('start') ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBeGreaterThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(4);

    const lines = t.stdout().split('\n').filter(Boolean);
    const results = lines.map((l) => JSON.parse(l) as { id: string; ok: boolean; attempt: number });
    expect(results.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(results.every((r) => r.ok && r.attempt === 1)).toBe(true);
    // Every journal line is a whole step: started, result and filed for each recording.
    const steps = journalSteps(join(dir, 'journal.jsonl'));
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n')).toHaveLength(steps.length);
    for (const id of ids) expect(steps.filter((s) => s.id === id).map((s) => s.step)).toEqual(['started', 'result', 'filed']);
    const created = counts(externalRecords(join(dir, 'external.jsonl')).map((r) => r.recordingId));
    expect([...created.values()].every((n) => n === 1)).toBe(true);
    expect(await unsynced()).toEqual([]);
  });

  it.each(['0', '17', '2.5', 'x'])('refuses --concurrency %s (exit 2, nothing sent)', async (n) => {
    await h.sandbox.control.clearRequests();
    const { t, run } = sync(h, ['--concurrency', n]);
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/--concurrency/);
    expect(await h.sandbox.control.requests()).toEqual([]);
  });

  it('--order priority lists first, then handles URGENT, HIGH, MEDIUM, LOW, oldest first within each', async () => {
    for (const priority of ['LOW', 'URGENT', 'HIGH', 'URGENT']) {
      const made = await h.control('/recordings', { status: 'COMPLETED', priority, title: `made ${priority}` });
      expect(made.status).toBe(201);
    }
    const rank: Record<string, number> = { URGENT: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };
    const expected = (await unsynced())
      .sort((a, b) => (rank[a.priority] ?? 9) - (rank[b.priority] ?? 9) || a.createdAt.localeCompare(b.createdAt))
      .map((r) => r.id)
      .slice(0, 4);
    await h.sandbox.control.clearRequests();
    const { t, run } = sync(h, ['--order', 'priority', '--max-items', '4']);
    expect(await run()).toBe(0);
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(results.map((r) => r.id)).toEqual(expected);
    const log = await h.sandbox.control.requests();
    const firstFetch = log.findIndex(isFetch);
    expect(log.slice(0, firstFetch).every(isList)).toBe(true);
    expect(log.filter(isList).length).toBeGreaterThan(0);
  });
});

describe('rfs sync --concurrency under a real --rate', () => {
  let h: Harness;
  let time: FakeTime;
  beforeEach(async () => {
    // rfs and the service on one injected clock. The service allows 10 requests a minute, as rfs
    // is told: 5 recordings are 11 requests (a list, then a fetch and a filing each), so the
    // pacer has to wait; unpaced, the 11th would be a 429.
    time = fakeTime();
    h = await start({ rateLimit: 10, rateWindowSeconds: 60, recordings: 0, now: () => time.now });
    for (let i = 0; i < 5; i++) expect((await h.control('/recordings', { status: 'COMPLETED', title: `paced ${i}` })).status).toBe(201);
  });
  afterEach(async () => {
    await h.close();
  });

  /** The runs of requests a token bucket of `perMinute` with bursts of 10 would not let through. */
  function overRate(log: LoggedRequest[], perMinute: number): string[] {
    const at = log.map((r) => Date.parse(r.time));
    const over: string[] = [];
    at.forEach((first, i) => {
      at.forEach((last, j) => {
        if (j >= i && j - i + 1 > 10 + ((last - first) * perMinute) / 60_000 + 1e-9)
          over.push(`${j - i + 1} requests in ${last - first} ms`);
      });
    });
    return over;
  }

  it('sends no more than --rate allows, never gets a 429, and still runs commands side by side', async () => {
    const ids = ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
    expect(ids).toHaveLength(5);
    // That listing spent a token of the service's minute: the next one gives it back.
    time.advance(6_000);
    await h.sandbox.control.clearRequests();
    // Each command marks that it started; the first one waits (2 s at most, then fails) until
    // another has started too: only commands that run side by side get past it.
    const command = `: > "${dir}/started.$RFS_RECORDING_ID"; n=0; while set -- "${dir}"/started.*; [ $# -lt 2 ]; do [ $n -ge 200 ] && exit 1; sleep 0.01; n=$((n+1)); done; echo "crm-$RFS_RECORDING_ID"`;
    const t = bufferIO({
      env: { RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base, PATH: process.env.PATH },
    });
    const argv = ['sync', '--exec', command, '--provider', 'crm', '--journal', join(dir, 'journal.jsonl'), '-o', 'ndjson'];
    expect(await runCli([...argv, '--concurrency', '3', '--rate', '10'], t.io, { clock: time.clock })).toBe(0);

    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean });
    expect(results.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(results.every((r) => r.ok)).toBe(true);
    const log = await h.sandbox.control.requests();
    expect(log).toHaveLength(11);
    expect(log.filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
    expect(overRate(log, 10)).toEqual([]);
    // The pacer waited for the 11th: a token comes every 6 s at 10 a minute.
    expect(Date.parse(log[10]?.time ?? '') - Date.parse(log[0]?.time ?? '')).toBeGreaterThanOrEqual(6_000);
  });
});
