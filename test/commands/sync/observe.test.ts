// A long-running sync, watched (cli.md, sync): Prometheus /metrics (parsed here by a text-format
// parser, not by matching strings), /healthz that turns 503 when the service goes away, and
// --log-format json whose every stderr line is a JSON event without a secret in it.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime } from '../../helpers/clock.js';
import { LINUX, needs } from '../../helpers/platform.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;
let closed: boolean;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 8 });
  closed = false;
  dir = mkdtempSync(join(tmpdir(), 'rfs-observe-'));
});
afterEach(async () => {
  if (!closed) await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function sync(extra: string[], env: NodeJS.ProcessEnv = {}, command = COMMAND) {
  const t = bufferIO({
    env: syncEnv(h, dir, env),
  });
  const argv = ['sync', '--exec', command, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '-o', 'ndjson', ...extra];
  return { t, run: (signal: AbortSignal, clock: Clock) => runCli(argv, t.io, { signal, clock }) };
}

async function unsyncedCount(): Promise<number> {
  return ((await h.api('/recordings?limit=100')).json.data as unknown[]).length;
}

/** The base URL the run announced for --metrics (port 0 picks a free one). */
function monitorUrl(stderr: string): string {
  const m = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics, health on/.exec(stderr);
  if (!m) throw new Error(`no metrics URL in: ${stderr}`);
  return m[1]!;
}

/** How a connection to `host:port` ends: 'connected', or the error's code. */
function refusedOrConnected(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; count?: string; sum?: string; buckets?: Record<string, string> }[];
}

async function scrape(base: string): Promise<Map<string, Family> & { text: string }> {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text) as Family[];
  return Object.assign(new Map(families.map((f) => [f.name, f])), { text });
}

const value = (f: Family | undefined, labels: Record<string, string> = {}): number =>
  Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value);

/**
 * Observations of a histogram over all its label sets: the sum of its `_count` samples. Read
 * from the text, line by line, because the parser above merges the label sets of a labelled
 * histogram into one (it keeps the buckets of the last set only).
 */
function observations(text: string, name: string): number {
  const count = new RegExp(`^${name}_count(?:\\{[^}]*\\})? (\\S+)$`, 'gm');
  return [...text.matchAll(count)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe('--metrics', () => {
  it('serves Prometheus metrics whose filed counter equals the recordings filed, and /healthz 200 then 503 once the service is gone', async () => {
    const n = await unsyncedCount();
    expect(n).toBeGreaterThan(3);
    const time = fakeTime();
    const controller = new AbortController();
    const seen: { families?: Map<string, Family> & { text: string }; healthy?: [number, string]; sick?: [number, string] } = {};
    const { t, run } = sync(['--watch', '--interval', '30', '--metrics', '0']);
    let intervals = 0;
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 30_000) {
          intervals += 1;
          const base = monitorUrl(t.stderr());
          if (intervals === 1) {
            seen.families = await scrape(base);
            const res = await fetch(`${base}/healthz`);
            seen.healthy = [res.status, await res.text()];
            // The sandbox stops underneath: the next pass cannot list.
            await h.close();
            closed = true;
          } else {
            const res = await fetch(`${base}/healthz`);
            seen.sick = [res.status, await res.text()];
            controller.abort();
          }
        }
        return time.clock.sleep(ms, signal);
      },
    };
    expect(await run(controller.signal, clock)).toBe(0);

    const filed = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => r.ok).length;
    expect(filed).toBe(n);
    const m = seen.families!;
    expect(m.get('rfs_sync_recordings_filed_total')?.type).toBe('COUNTER');
    expect(value(m.get('rfs_sync_recordings_filed_total'))).toBe(filed);
    expect(value(m.get('rfs_sync_passes_total'), { result: 'ok' })).toBe(1);
    expect(value(m.get('rfs_sync_commands_running'))).toBe(0);
    expect(observations(m.text, 'rfs_sync_command_duration_seconds')).toBe(n);
    expect(m.get('rfs_sync_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(observations(m.text, 'rfs_sync_request_duration_seconds')).toBeGreaterThan(0);
    expect(value(m.get('rfs_sync_rate_limited_total'))).toBe(0);
    // More than 10 requests at --rate 120, in bursts of 10: the pacer waited.
    expect(value(m.get('rfs_sync_waits_total'), { kind: 'pacing' })).toBeGreaterThan(0);
    expect(value(m.get('rfs_sync_last_success_timestamp_seconds'))).toBeCloseTo(time.now / 1000 - 0, -3);
    // After a pass that filed every recording it listed, the backlog gauges say what is left:
    // nothing (cli.md, sync: the backlog now), not the listing the pass started from.
    expect(value(m.get('rfs_sync_unsynced_recordings'))).toBe(0);
    expect(value(m.get('rfs_sync_oldest_unsynced_age_seconds'))).toBe(0);

    expect(seen.healthy?.[0]).toBe(200);
    expect(seen.healthy?.[1]).toMatch(/^ok: the last pass ended 0 s ago without error/);
    expect(seen.sick?.[0]).toBe(503);
    expect(seen.sick?.[1]).toMatch(/^the last pass failed 0 s ago: /);
    expect(t.stderr()).toMatch(/the pass failed: /);
  }, 60_000);

  it('is 503 once the last pass ended more than two intervals ago', async () => {
    const time = fakeTime();
    const controller = new AbortController();
    const { t, run } = sync(['--watch', '--interval', '10', '--metrics', '0']);
    const answers: number[] = [];
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 10_000) {
          const base = monitorUrl(t.stderr());
          answers.push((await fetch(`${base}/healthz`)).status);
          // The next pass is stuck for 21 s of the clock (a slow listing, say): still one pass late.
          time.advance(21_000);
          answers.push((await fetch(`${base}/healthz`)).status);
          controller.abort();
        }
        return time.clock.sleep(ms, signal);
      },
    };
    expect(await run(controller.signal, clock)).toBe(0);
    expect(answers).toEqual([200, 503]);
  }, 30_000);

  // Linux answers on all of 127.0.0.0/8; elsewhere 127.0.0.2 may not exist, and proves nothing.
  it.skipIf(!LINUX.met)(needs(LINUX, 'listens on 127.0.0.1, and on no other address, when --metrics gives no host'), async () => {
    const time = fakeTime();
    const controller = new AbortController();
    // One recording, filed by a shell one-liner: the pass is over before the first interval.
    const { t, run } = sync(['--watch', '--interval', '30', '--metrics', '0', '--max-items', '1'], {}, 'echo "crm-$RFS_RECORDING_ID"');
    const seen: { base?: string; loopback?: number; other?: string } = {};
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 30_000) {
          seen.base = monitorUrl(t.stderr());
          seen.loopback = (await fetch(`${seen.base}/healthz`)).status;
          // 127.0.0.2 is loopback too: a server bound to every address would answer it.
          seen.other = await refusedOrConnected('127.0.0.2', Number(new URL(seen.base).port));
          controller.abort();
        }
        return time.clock.sleep(ms, signal);
      },
    };
    expect(await run(controller.signal, clock)).toBe(0);
    expect(seen).toMatchObject({ base: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), loopback: 200, other: 'ECONNREFUSED' });
  });

  it('refuses a --metrics that is not [host:]port, before anything is sent (exit 2)', async () => {
    const { t, run } = sync(['--metrics', 'localhost:99999']);
    expect(await run(new AbortController().signal, fakeTime().clock)).toBe(2);
    expect(t.stderr()).toMatch(/--metrics must be a port or host:port/);
  });
});

describe('--log-format json', () => {
  it('writes one JSON event per line on stderr, with no key in any of them', async () => {
    // A command that leaks the key into its error for one recording: no event may carry it.
    const [victim] = ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
    const leaky = `if [ "$RFS_RECORDING_ID" = "${victim}" ]; then echo "cannot file: key $RFS_API_KEY refused" >&2; exit 3; fi; ${COMMAND}`;
    const n = await unsyncedCount();
    const time = fakeTime();
    // The key reaches the command only when asked for by name (docs/sync.md): asked here.
    const { t, run } = sync(['--log-format', 'json', '--exec-env', 'RFS_API_KEY'], {}, leaky);
    expect(await run(new AbortController().signal, time.clock)).toBe(8);
    const lines = t.stderr().trim().split('\n');
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const e of events) {
      expect(typeof e.time).toBe('string');
      expect(['debug', 'info', 'warn', 'error']).toContain(e.level);
    }
    expect(t.stderr()).not.toContain(h.keys.admin);
    expect(t.stdout()).not.toContain(h.keys.admin);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('pass-start');
    expect(names.filter((n) => n === 'result')).toHaveLength(n);
    expect(names).toContain('wait');
    const end = events.find((e) => e.event === 'pass-end');
    expect(end).toMatchObject({ level: 'info', pass: 1, filed: n - 1, failed: 1, interrupted: false });
    const result = events.find((e) => e.event === 'result' && e.id === victim) as {
      ok: boolean;
      level: string;
      error: { message: string };
    };
    expect(result).toMatchObject({ ok: false, level: 'warn' });
    expect(result.error.message).toMatch(/^the command exited 3: cannot file: key service_pk_…\S{4} refused$/);
    // The pass ends with its pass-end event alone: no `summary` line says the same counts again.
    expect(events.at(-1)).toMatchObject({ event: 'pass-end', filed: n - 1, failed: 1 });
    expect(names).not.toContain('summary');
  }, 30_000);

  it('ends with an error event, not a text report, when the run fails', async () => {
    const { t, run } = sync(['--log-format', 'json'], { RFS_BASE_URL: 'http://127.0.0.1:1' });
    const code = await run(new AbortController().signal, fakeTime().clock);
    expect(code).toBe(6);
    const events = t
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.at(-1)).toMatchObject({ level: 'error', event: 'error', exitCode: 6 });
  }, 30_000);
});
