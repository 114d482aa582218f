// `rfs sandbox --scenario incident` (sandbox.md, Rehearsing an incident). Its shape
// (counts per subscription and status, full lists, the spread of times, the deleted subscription
// gone but its deliveries listed), the receivers it runs and their modes, and one incident per seed.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { serve } from '../../src/commands/sandbox/run.js';
import type { IO } from '../../src/core/io.js';
import { startSandbox, SandboxControlError } from '../../src/sandbox/index.js';
import { bufferIO } from '../helpers/io.js';
import { eventually, rawRequest, start, type Harness } from './helpers.js';

interface Row {
  id: string;
  subscriptionId: string;
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  lastError: string | null;
  lastResponseStatus: number | null;
  createdAt: string;
}
interface StateDelivery {
  id: string;
  subscriptionId: string;
  status: string;
  createdAt: number;
  lastAttemptAt: number | null;
  lastError: string | null;
  recordingId: string;
  log: { attempt: number; at: number; error: string | null; responseStatus: number | null; url: string }[];
}

const MINUTE = 60_000;

describe('rfs sandbox --scenario incident: what it holds', () => {
  let h: Harness;
  let started: number;
  let subs: Record<string, string>;
  let deliveries: StateDelivery[];
  beforeAll(async () => {
    started = Date.now();
    h = await start({ scenario: 'incident', rateLimit: 0 });
    // Read at once: the PENDING ones carry on live against the failing receiver.
    deliveries = (await h.control('/state')).json.deliveries;
    subs = Object.fromEntries((h.sandbox.scenario?.receivers ?? []).map((r) => [r.name, r.subscriptionId]));
  });
  afterAll(() => h.close());

  const of = (name: string, status?: string): StateDelivery[] =>
    deliveries.filter((d) => d.subscriptionId === subs[name] && (status === undefined || d.status === status));
  const list = async (query: string): Promise<Row[]> => {
    const res = await h.api(`/webhooks/deliveries${query}`);
    expect(res.status).toBe(200);
    return res.json.data;
  };

  it('runs three receivers on loopback, each with its subscription; the deleted one is gone from GET /webhooks', async () => {
    const receivers = (await h.control('/receivers')).json.data;
    expect(receivers.map((r: { name: string; mode: string }) => [r.name, r.mode])).toEqual([
      ['healthy', 'ok'],
      ['failing', 'fail'],
      ['deleted', 'down'],
    ]);
    for (const r of receivers) expect(r.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/${r.name}$`));
    const listed = (await h.api('/webhooks')).json.data;
    expect(listed.map((s: { id: string; url: string }) => [s.id, s.url])).toEqual([
      [subs.healthy, receivers[0].url],
      [subs.failing, receivers[1].url],
    ]);
    expect(subs.deleted).toMatch(/^wh_/);
  });

  it('holds 300+ deliveries: SUCCEEDED on healthy, FAILED and PENDING on failing, FAILED on deleted', () => {
    expect(deliveries.length).toBeGreaterThanOrEqual(300);
    expect(of('healthy').length).toBeGreaterThanOrEqual(100);
    expect(of('healthy', 'SUCCEEDED').length).toBe(of('healthy').length);
    expect(of('failing', 'FAILED').length).toBeGreaterThan(50);
    expect(of('failing', 'PENDING').length).toBeGreaterThanOrEqual(1);
    expect(of('failing', 'SUCCEEDED').length).toBeGreaterThan(0); // before it began failing
    expect(of('deleted').length).toBeGreaterThan(50);
    expect(of('deleted', 'FAILED').length).toBe(of('deleted').length);
    expect(of('healthy').length + of('failing').length + of('deleted').length).toBe(deliveries.length);
  });

  it('spreads attempts over the last two hours, with errors that differ', () => {
    const times = deliveries.flatMap((d) => d.log.map((a) => a.at));
    expect(Math.min(...times)).toBeLessThan(started - 110 * MINUTE);
    expect(Math.min(...times)).toBeGreaterThan(started - 121 * MINUTE);
    expect(Math.max(...times)).toBeGreaterThan(started - 3 * MINUTE);
    // Each half hour has attempts.
    for (let q = 0; q < 4; q++) {
      const from = started - (q + 1) * 30 * MINUTE;
      expect(
        times.some((t) => t >= from && t < from + 30 * MINUTE),
        `attempts ${q * 30}-${(q + 1) * 30} min ago`,
      ).toBe(true);
    }
    const errors = new Set(
      of('failing').flatMap((d) => d.log.map((a) => (a.error ?? 'ok').replace(/:\d+$/, ':N').replace(/within \d+/, 'within N'))),
    );
    expect([...errors].sort()).toEqual(
      ['ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:N', 'HTTP 500', 'HTTP 503', 'no answer within N ms', 'ok'].sort(),
    );
    // The last 30 minutes of failing: 503s among other errors, so --since 30m --error 503 selects some, not all.
    const recent = of('failing').filter((d) => (d.lastAttemptAt ?? 0) >= started - 30 * MINUTE && d.status !== 'SUCCEEDED');
    const recent503 = recent.filter((d) => d.lastError === 'HTTP 503');
    expect(recent503.length).toBeGreaterThan(5);
    expect(recent503.length).toBeLessThan(recent.length);
    expect(
      of('failing').filter((d) => d.lastError === 'HTTP 503' && (d.lastAttemptAt ?? 0) < started - 30 * MINUTE).length,
    ).toBeGreaterThan(0);
  });

  it('fills every list the API allows, and the deleted subscription hides behind a full FAILED list', async () => {
    expect((await list('')).length).toBe(50);
    expect((await list('?status=SUCCEEDED')).length).toBe(50);
    const failed = await list('?status=FAILED');
    expect(failed.length).toBe(50);
    expect(new Set(failed.map((d) => d.subscriptionId))).toEqual(new Set([subs.failing]));
    const oldestListed = Math.min(...failed.map((d) => Date.parse(d.lastAttemptAt ?? '')));
    const gone = await list(`?status=FAILED&subscriptionId=${subs.deleted}`);
    expect(gone.length).toBe(50);
    for (const d of of('deleted')) {
      expect(d.lastAttemptAt).toBeLessThan(oldestListed);
      expect(d.createdAt).toBeGreaterThan(started - 121 * MINUTE);
      expect(d.lastAttemptAt).toBeLessThan(started - 57 * MINUTE);
    }
    expect((await list(`?subscriptionId=${subs.deleted}`)).length).toBe(50);
    expect((await list(`?subscriptionId=${subs.healthy}`)).length).toBe(50);
    expect((await list(`?subscriptionId=${subs.failing}`)).length).toBe(50);
    // Newest first, as the API lists them.
    const all = await list('');
    const created = all.map((d) => Date.parse(d.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('shows each backdated attempt in GET /_sandbox/deliveries/:id/attempts, agreeing with the delivery', async () => {
    const sample = [of('deleted')[0], of('failing', 'FAILED').at(-1), of('healthy').at(-1)] as StateDelivery[];
    for (const d of sample) {
      const attempts = (await h.control(`/deliveries/${d.id}/attempts`)).json.data;
      expect(attempts.length).toBe(d.log.length);
      const last = attempts.at(-1);
      expect(Date.parse(last.at)).toBe(d.lastAttemptAt);
      expect(last.error).toBe(d.lastError);
      expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual(d.log.map((_, i) => i + 1));
      // Signed as the worker signs: the timestamp is the attempt's own second.
      expect(last.requestHeaders['x-service-timestamp']).toBe(String(Math.floor((d.lastAttemptAt as number) / 1000)));
    }
    // Attempts end at the limit (5 by default) or when the subscription was deleted.
    for (const row of await list(`?subscriptionId=${subs.deleted}`)) {
      const stored = of('deleted').find((d) => d.id === row.id) as StateDelivery;
      expect(row.attempts).toBe(stored.log.length);
      expect(row.attempts === 5 || row.lastError === 'subscription deleted', row.id).toBe(true);
      expect(Date.parse(row.lastAttemptAt ?? '')).toBe(stored.lastAttemptAt);
    }
  });

  it('gives each delivery a recording of main that exists and is COMPLETED', async () => {
    const d = of('failing', 'FAILED').at(-1) as StateDelivery;
    const rec = await h.api(`/recordings/${d.recordingId}`);
    expect(rec.status).toBe(200);
    expect(rec.json.data.status).toBe('COMPLETED');
  });
});

describe('rfs sandbox --scenario incident: the receivers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await start({ scenario: 'incident', rateLimit: 0, deliveryBackoffMs: 10, deliveryTimeoutMs: 2000 });
  });
  afterAll(() => h.close());

  const subscription = (name: string): string => h.sandbox.scenario?.receivers.find((r) => r.name === name)?.subscriptionId ?? '';

  it('recovers when told: after {"mode":"ok"} on failing, pending deliveries and replays succeed', async () => {
    const failing = subscription('failing');
    const set = await h.control('/receivers/failing', { mode: 'ok' });
    expect(set.status).toBe(200);
    expect(set.json.data).toMatchObject({ name: 'failing', mode: 'ok', subscriptionId: failing });
    const failed = (await h.api(`/webhooks/deliveries?status=FAILED&subscriptionId=${failing}`)).json.data[0] as Row;
    expect((await h.api(`/webhooks/deliveries/${failed.id}/replay`, { method: 'POST' })).status).toBe(202);
    const done = await eventually(async () => {
      const row = (await h.api(`/webhooks/deliveries?subscriptionId=${failing}&limit=50`)).json.data.find((d: Row) => d.id === failed.id);
      return row.status === 'SUCCEEDED' ? row : undefined;
    }, 20_000);
    expect(done.lastResponseStatus).toBe(200);
    // The ones still retrying at the start succeed too, with no replay.
    await eventually(async () => ((await h.api(`/webhooks/deliveries?status=PENDING`)).json.data.length === 0 ? true : undefined), 20_000);
    const attempts = (await h.control(`/deliveries/${failed.id}/attempts`)).json.data;
    expect(attempts.at(-1)).toMatchObject({ responseStatus: 200, error: null });
  });

  it('down refuses connections, and back up it listens on the same port', async () => {
    const healthy = subscription('healthy');
    const url = h.sandbox.scenario?.receivers.find((r) => r.name === 'healthy')?.url ?? '';
    expect((await h.control('/receivers/healthy', { mode: 'down' })).json.data.mode).toBe('down');
    const one = (await h.api(`/webhooks/deliveries?subscriptionId=${healthy}`)).json.data[0] as Row;
    await h.api(`/webhooks/deliveries/${one.id}/replay`, { method: 'POST' });
    const refused = await eventually(async () => {
      const attempts = (await h.control(`/deliveries/${one.id}/attempts`)).json.data;
      return attempts.length > 1 ? attempts.at(-1) : undefined;
    }, 20_000);
    expect(refused.error).toMatch(/^ECONNREFUSED/);
    const back = await h.sandbox.control.setReceiver('healthy', 'ok');
    expect(back).toMatchObject({ name: 'healthy', mode: 'ok', url, subscriptionId: healthy });
    await eventually(async () => {
      const row = (await h.api(`/webhooks/deliveries?subscriptionId=${healthy}`)).json.data.find((d: Row) => d.id === one.id);
      return row.status === 'SUCCEEDED' ? true : undefined;
    }, 20_000);
  });

  it('fail answers 500, 503 with Retry-After, no answer, and a reset connection, in turn', async () => {
    const url = h.sandbox.scenario?.receivers.find((r) => r.name === 'deleted')?.url ?? '';
    await h.sandbox.control.setReceiver('deleted', 'fail');
    const post = () => fetch(url, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1500) });
    const first = await post();
    expect(first.status).toBe(500);
    const second = await post();
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('120');
    await expect(post()).rejects.toThrow(); // no answer: the timeout
    await post(); // 500
    await post(); // 503
    await expect(post()).rejects.toThrow(); // reset
    await h.sandbox.control.setReceiver('deleted', 'down');
  });

  it('comes back whole on POST /_sandbox/reset: the history made again, the receivers in their first modes', async () => {
    await h.sandbox.control.setReceiver('failing', 'ok');
    await h.sandbox.control.reset();
    expect((await h.sandbox.control.receivers()).map((r) => [r.name, r.mode])).toEqual([
      ['healthy', 'ok'],
      ['failing', 'fail'],
      ['deleted', 'down'],
    ]);
    const state = await h.sandbox.control.exportState();
    expect(state.deliveries.length).toBeGreaterThanOrEqual(300);
    expect(state.subscriptions.map((s) => s.id)).toEqual([subscription('healthy'), subscription('failing')]);
  });

  it('refuses an unknown receiver (404), a bad body (400) and a foreign Host (403)', async () => {
    expect((await h.control('/receivers/nobody', { mode: 'ok' })).status).toBe(404);
    const bad = await h.control('/receivers/failing', { mode: 'sideways' });
    expect(bad.status).toBe(400);
    expect(bad.json.path).toBe('mode');
    expect((await h.control('/receivers/failing', { mode: 'ok', extra: 1 })).status).toBe(400);
    expect((await h.control('/receivers/failing', {})).status).toBe(400);
    const foreign = await rawRequest(h.base, '/_sandbox/receivers', { host: 'attacker.example' });
    expect(foreign.status).toBe(403);
    const error = await h.sandbox.control.setReceiver('nobody', 'ok').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxControlError);
    expect((error as SandboxControlError).status).toBe(404);
  });
});

describe('rfs sandbox --scenario incident: one incident per seed', () => {
  const T = Date.parse('2026-03-02T10:00:00.000Z');
  // The history, without the ports (each start has its own) and what the live worker adds after the start.
  async function history(seed: string, now: number): Promise<unknown> {
    const s = await startSandbox({ port: 0, seed, scenario: 'incident', now: () => now, deliveryBackoffMs: 3_600_000 });
    try {
      const state = await s.control.exportState();
      const port = /:\d+\//g;
      return {
        subscriptions: state.subscriptions.map((sub) => ({ ...sub, url: sub.url.replace(port, ':P/'), createdAt: sub.createdAt - now })),
        deliveries: state.deliveries.map((d) => ({
          id: d.id,
          subscriptionId: d.subscriptionId,
          recordingId: d.recordingId,
          createdAt: d.createdAt - now,
          log: d.log.filter((a) => a.at < now).map((a) => [a.at - now, a.responseStatus, a.error?.replace(/:\d+$/, ':P')]),
        })),
      };
    } finally {
      await s.close();
    }
  }

  it('makes the same ids, subscriptions and attempts under one seed, with times relative to the start', async () => {
    const a = await history('42', T);
    expect(await history('42', T + 3 * 3_600_000)).toEqual(a);
    const other = (await history('43', T)) as { deliveries: { id: string }[] };
    expect(other.deliveries[0]?.id).not.toBe((a as { deliveries: { id: string }[] }).deliveries[0]?.id);
  });

  it('starts in well under half a second more than without it', async () => {
    const time = async (scenario: boolean): Promise<number> => {
      const t0 = performance.now();
      const s = await startSandbox({ port: 0, seed: 7, ...(scenario ? { scenario: 'incident' as const } : {}) });
      const took = performance.now() - t0;
      await s.close();
      return took;
    };
    // The best of three of each: one start on a busy machine says little.
    const plain = Math.min(await time(false), await time(false), await time(false));
    const scenario = Math.min(await time(true), await time(true), await time(true));
    expect(scenario - plain).toBeLessThan(500);
  });
});

describe('rfs sandbox --scenario: options and the command', () => {
  it('checks the option like the others', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a caller without TypeScript
    await expect(startSandbox({ port: 0, scenario: 'outage' as any })).rejects.toThrow(/sandbox option scenario must be one of "incident"/);
    await expect(startSandbox({ port: 0, scenario: 'incident', fixtures: [] })).rejects.toThrow(/cannot be combined/);
  });

  it('lists --scenario in --help with what the scenario holds', async () => {
    const t = bufferIO();
    expect(await runCli(['sandbox', '--help'], t.io)).toBe(0);
    const help = t.stdout().replace(/\s+/g, ' ');
    expect(help).toContain('--scenario <name>');
    expect(help).toMatch(/Scenarios: incident: three subscriptions to receivers the sandbox runs itself: healthy \(2xx\), failing \(500s,/);
    expect(help).toContain('POST /_sandbox/receivers/failing {"mode":"ok"} makes the failing receiver recover');
    for (const line of t.stdout().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(help).toContain('rfs sandbox --scenario incident --seed 42');
  });

  it('refuses --scenario with --data, and an unknown scenario, with exit 2', async () => {
    const bad = bufferIO();
    expect(await runCli(['sandbox', '--scenario', 'outage'], bad.io)).toBe(2);
    expect(bad.stderr()).toMatch(/incident/);
    const both = bufferIO();
    expect(await runCli(['sandbox', '--scenario', 'incident', '--data', '/tmp/never-written.json'], both.io)).toBe(2);
    expect(both.stderr()).toContain('--scenario makes its own state');
  });

  it('says in the banner what the scenario holds and how to make the receiver recover', async () => {
    const err = new PassThrough();
    let stderr = '';
    err.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const io: IO = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: err,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      columns: 80,
      env: {},
    };
    const controller = new AbortController();
    const done = serve(io, { port: '0', seed: '42', scenario: 'incident' }, controller.signal);
    await eventually(async () => (stderr.includes('Make it recover') ? true : undefined), 10_000);
    controller.abort();
    expect(await done).toBe(0);
    expect(stderr).toMatch(/Scenario incident: 300\+ deliveries whose attempts span the last two hours/);
    expect(stderr).toMatch(/ {2}healthy {2}wh_\w+ {2}http:\/\/127\.0\.0\.1:\d+\/healthy {2}answers 2xx/);
    expect(stderr).toMatch(/ {2}deleted {2}wh_\w+ {2}http:\/\/127\.0\.0\.1:\d+\/deleted {2}down; its subscription was deleted/);
    // The four ways the failing receiver fails, as --help says them.
    expect(stderr).toContain('The failing receiver fails with 500s, 503s with Retry-After, timeouts and refused connections;');
    expect(stderr).toMatch(
      /curl -X POST -H 'content-type: application\/json' -d '\{"mode":"ok"\}' http:\/\/127\.0\.0\.1:\d+\/_sandbox\/receivers\/failing/,
    );
  });
});
