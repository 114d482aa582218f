// `rfs sync --metrics` as Prometheus itself judges it (cli.md, sync): the real
// `promtool check metrics` on a live scrape, every labelled counter at 0 from the first scrape
// so that increase() sees the first failure, the backlog and build info, and the shipped
// alerting rules through `promtool check rules` and `promtool test rules`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

const RULES_DIR = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));

/** promtool, the real one (.ci/run installs the Debian package `prometheus`). */
function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', args, { input, encoding: 'utf8', cwd: RULES_DIR });
  if (r.error) throw new Error(`promtool could not be run (apt-get install prometheus): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

let h: Harness;
let dir: string;
let closed: boolean;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 4 });
  closed = false;
  dir = mkdtempSync(join(tmpdir(), 'rfs-prom-'));
});
afterEach(async () => {
  if (!closed) await h.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Sample {
  value?: string;
  /** An unlabelled histogram's count. */
  count?: string;
  labels?: Record<string, string>;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

function monitorUrl(stderr: string): string | undefined {
  return /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics, health on/.exec(stderr)?.[1];
}

async function scrapeText(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

function families(text: string): Map<string, Family> {
  return new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
}

/** The sample's value, or undefined when no sample has these labels. */
function sample(m: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = m.get(name)?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return found === undefined ? undefined : Number(found.value);
}

function sync(extra: string[], command: string, env: NodeJS.ProcessEnv = {}) {
  const t = bufferIO({ env: syncEnv(h, dir, env) });
  const argv = ['sync', '--exec', command, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '-o', 'ndjson', ...extra];
  return { t, run: (signal: AbortSignal, clock: Clock) => runCli(argv, t.io, { signal, clock }) };
}

describe('rfs sync --metrics, scraped', () => {
  it('serves what promtool check metrics accepts, with every labelled counter at 0 before the first failure and at 1 after it', async () => {
    const go = join(dir, 'go');
    // The first recording's command waits until the test has scraped, then fails (exit 3).
    const command = `while [ ! -e "${go}" ]; do sleep 0.02; done; echo "the CRM refused it" >&2; exit 3`;
    const time = fakeTime();
    const controller = new AbortController();
    const { t, run } = sync(['--watch', '--interval', '30', '--metrics', '0', '--max-items', '1'], command);
    const seen: { during?: string; afterFailure?: string; afterFailedPass?: string; firstPassEnd?: number } = {};
    let intervals = 0;
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 30_000) {
          intervals += 1;
          const base = monitorUrl(t.stderr()) as string;
          if (intervals === 1) {
            seen.firstPassEnd = time.now;
            seen.afterFailure = await scrapeText(base);
            // The service goes away: the next pass fails as a whole.
            await h.close();
            closed = true;
          } else {
            seen.afterFailedPass = await scrapeText(base);
            controller.abort();
          }
        }
        return time.clock.sleep(ms, signal);
      },
    };
    const running = run(controller.signal, clock);
    const base = await eventually(async () => monitorUrl(t.stderr()));
    // Scraped while the first command runs: nothing has failed yet.
    seen.during = await eventually(async () => {
      const text = await scrapeText(base);
      return sample(families(text), 'rfs_sync_commands_running') === 1 ? text : undefined;
    });
    writeFileSync(go, '');
    expect(await running).toBe(0);

    for (const text of [seen.during, seen.afterFailure, seen.afterFailedPass]) {
      expect(promtool(['check', 'metrics'], text)).toEqual({ status: 0, output: '' });
    }

    const before = families(seen.during);
    for (const stage of ['fetch', 'command', 'filing']) expect(sample(before, 'rfs_sync_recordings_failed_total', { stage })).toBe(0);
    for (const result of ['ok', 'failed', 'interrupted']) expect(sample(before, 'rfs_sync_passes_total', { result })).toBe(0);
    for (const kind of ['pacing', 'retry']) {
      expect(sample(before, 'rfs_sync_waits_total', { kind })).toBe(0);
      expect(sample(before, 'rfs_sync_wait_seconds_total', { kind })).toBe(0);
    }
    expect(sample(before, 'rfs_sync_rate_limited_total')).toBe(0);
    expect(sample(before, 'rfs_sync_recordings_parked_total')).toBe(0);
    // Absent, not 0, before the first successful pass: a staleness alert cannot fire on it.
    expect(before.has('rfs_sync_last_success_timestamp_seconds')).toBe(false);
    expect(sample(before, 'rfs_sync_build_info', { version: RFS_VERSION, node_version: process.versions.node })).toBe(1);
    // The Prometheus client's process metrics.
    expect(sample(before, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(before, 'process_start_time_seconds')).toBeGreaterThan(0);
    // The backlog now: the journal holds the started command; the listing found one (--max-items 1).
    expect(sample(before, 'rfs_sync_journal_recordings', { state: 'pending' })).toBe(1);
    expect(sample(before, 'rfs_sync_journal_recordings', { state: 'failing' })).toBe(0);
    // The backlog is absent, not 0 nor the listing read so far, until the first pass has ended
    //: RfsSyncBacklogGrowing's delta() would see a backlog grow from nothing.
    expect(before.has('rfs_sync_unsynced_recordings')).toBe(false);
    expect(before.has('rfs_sync_oldest_unsynced_age_seconds')).toBe(false);

    const after = families(seen.afterFailure as string);
    expect(sample(after, 'rfs_sync_recordings_failed_total', { stage: 'command' })).toBe(1);
    expect(sample(after, 'rfs_sync_recordings_failed_total', { stage: 'fetch' })).toBe(0);
    expect(sample(after, 'rfs_sync_passes_total', { result: 'ok' })).toBe(1);
    expect(sample(after, 'rfs_sync_passes_total', { result: 'failed' })).toBe(0);
    expect(after.get('rfs_sync_pass_duration_seconds')?.metrics[0]?.count).toBe('1');
    expect(sample(after, 'rfs_sync_last_success_timestamp_seconds')).toBe((seen.firstPassEnd as number) / 1000);
    expect(sample(after, 'rfs_sync_journal_recordings', { state: 'failing' })).toBe(1);
    expect(sample(after, 'rfs_sync_journal_recordings', { state: 'pending' })).toBe(0);
    expect(sample(after, 'rfs_sync_oldest_unsynced_age_seconds')).toBeGreaterThan(0);
    expect(sample(after, 'rfs_sync_unsynced_recordings')).toBe(1);

    const failedPass = families(seen.afterFailedPass as string);
    expect(sample(failedPass, 'rfs_sync_passes_total', { result: 'failed' })).toBe(1);
    expect(failedPass.get('rfs_sync_pass_duration_seconds')?.metrics[0]?.count).toBe('2');
  }, 60_000);

  it('counts each HTTP 429 in rfs_sync_rate_limited_total and its wait under kind="retry"', async () => {
    // The first two filings are answered 429 (with Retry-After): the client waits, then files.
    const script = [{ match: '/filings', method: 'POST', kind: 'rate-limit', times: 2 }];
    expect((await h.control('/faults', { rate: 0, script })).status).toBe(200);
    const time = fakeTime();
    const controller = new AbortController();
    const { t, run } = sync(['--watch', '--interval', '30', '--metrics', '0', '--max-items', '1'], COMMAND);
    let text = '';
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 30_000) {
          text = await scrapeText(monitorUrl(t.stderr()) as string);
          controller.abort();
        }
        return time.clock.sleep(ms, signal);
      },
    };
    expect(await run(controller.signal, clock)).toBe(0);
    const m = families(text);
    expect(sample(m, 'rfs_sync_recordings_filed_total')).toBe(1);
    expect(sample(m, 'rfs_sync_rate_limited_total')).toBe(2);
    expect(sample(m, 'rfs_sync_waits_total', { kind: 'retry' })).toBe(2);
    expect(sample(m, 'rfs_sync_wait_seconds_total', { kind: 'retry' })).toBeGreaterThan(0);
  }, 30_000);
});

describe('the shipped alerting rules (deploy/prometheus)', () => {
  it('pass promtool check rules', () => {
    const r = promtool(['check', 'rules', 'rfs-sync-alerts.yml']);
    expect(r.output).toMatch(/SUCCESS: 6 rules found/);
    expect(r.status).toBe(0);
  });

  it('pass their unit tests under promtool test rules', () => {
    const r = promtool(['test', 'rules', 'rfs-sync-alerts.test.yml']);
    expect(r.output).toMatch(/SUCCESS/);
    expect(r.status).toBe(0);
  });
});
