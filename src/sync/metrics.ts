// The Prometheus metrics of a long-running sync (cli.md, sync, --metrics), kept by prom-client
// in a registry of this run's own. Loaded only when --metrics is given: prom-client is not
// part of any other command's start-up.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { ATTEMPT_CHANNEL, WAIT_CHANNEL, type WaitMessage } from '../api/client.js';
import type { Clock } from '../core/clock.js';
import { type Standing, standingOf } from './backoff.js';
import type { RecordingState } from './journal.js';
import type { SyncObserver } from './observer.js';

export interface SyncMetrics extends SyncObserver {
  readonly registry: Registry;
}

/** The label values each labelled metric can take: all exist at 0 from the first scrape (cli.md, sync). */
const PASS_RESULTS = ['ok', 'failed', 'interrupted'] as const;
const FAILURE_STAGES = ['fetch', 'command', 'filing'] as const;
const COMMAND_OUTCOMES = ['ok', 'failed', 'timeout'] as const;
const WAIT_KINDS = ['pacing', 'retry'] as const satisfies readonly WaitMessage['kind'][];
const JOURNAL_STATES = ['pending', 'failing', 'parked'] as const satisfies readonly Standing['state'][];

export function createSyncMetrics(clock: Clock): SyncMetrics {
  const registry = new Registry();
  const registers = [registry];
  // The Prometheus client's own process and Node.js metrics (CPU, memory, open files, event loop lag).
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool check metrics flags; each has a per-type twin
  // (nodejs_active_handles{type}, ...) whose sum is the same number.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  new Gauge({
    name: 'rfs_sync_build_info',
    help: 'Always 1: the version of rfs and of Node.js that run this sync',
    labelNames: ['version', 'node_version'] as const,
    registers,
  }).set({ version: RFS_VERSION, node_version: process.versions.node }, 1);
  const passes = new Counter({
    name: 'rfs_sync_passes_total',
    help: 'Passes ended, by result: ok, failed (a pass-level error) or interrupted',
    labelNames: ['result'] as const,
    registers,
  });
  const passSeconds = new Histogram({
    name: 'rfs_sync_pass_duration_seconds',
    help: 'How long each pass took, from its start to its end whatever the result',
    buckets: [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const filed = new Counter({ name: 'rfs_sync_recordings_filed_total', help: 'Recordings filed (a filing confirmed)', registers });
  const failed = new Counter({
    name: 'rfs_sync_recordings_failed_total',
    help: 'Recordings that failed, by stage: fetch, command or filing',
    labelNames: ['stage'] as const,
    registers,
  });
  const parked = new Counter({
    name: 'rfs_sync_recordings_parked_total',
    help: 'Recordings parked after --max-attempts failures of their command',
    registers,
  });
  const running = new Gauge({ name: 'rfs_sync_commands_running', help: 'Commands running now', registers });
  const commandSeconds = new Histogram({
    name: 'rfs_sync_command_duration_seconds',
    help: 'How long each command ran, by outcome: ok, failed or timeout',
    labelNames: ['outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'rfs_sync_request_duration_seconds',
    help: 'Each HTTP attempt to the service, by method and status (network for no answer)',
    labelNames: ['method', 'status'] as const,
    registers,
  });
  const rateLimited = new Counter({ name: 'rfs_sync_rate_limited_total', help: 'HTTP 429 answers from the service', registers });
  const waits = new Counter({
    name: 'rfs_sync_waits_total',
    help: 'Waits before a request, by kind: pacing (--rate) or retry',
    labelNames: ['kind'] as const,
    registers,
  });
  const waitSeconds = new Counter({
    name: 'rfs_sync_wait_seconds_total',
    help: 'Time spent waiting before requests, by kind: pacing (--rate) or retry',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const result of PASS_RESULTS) passes.inc({ result }, 0);
  for (const stage of FAILURE_STAGES) failed.inc({ stage }, 0);
  for (const outcome of COMMAND_OUTCOMES) commandSeconds.zero({ outcome });
  for (const kind of WAIT_KINDS) {
    waits.inc({ kind }, 0);
    waitSeconds.inc({ kind }, 0);
  }

  // Registered at the first successful pass: before it the series is absent, not 0, so that an
  // alert on its age does not fire during a long first pass (cli.md, sync).
  const lastSuccess = new Gauge({
    name: 'rfs_sync_last_success_timestamp_seconds',
    help: 'When the last pass without a pass-level error ended (Unix time); absent before the first',
    registers: [],
  });
  let succeeded = false;

  let journal: ReadonlyMap<string, RecordingState> | undefined;
  new Gauge({
    name: 'rfs_sync_journal_recordings',
    help: 'Recordings the journal holds now, by state: pending (to file, or may have run), failing (waits to run again), parked',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const counts = { pending: 0, failing: 0, parked: 0 };
      for (const s of journal?.values() ?? []) counts[standingOf(s).state] += 1;
      for (const state of JOURNAL_STATES) this.set({ state }, counts[state]);
    },
  });

  /** The oldest creation time and the count among the recordings still unsynced after the last pass. */
  let oldest: number | undefined;
  let unsynced = 0;
  /**
   * The recordings this pass listed and has not filed, by id, with their creation time (NaN
   * when unreadable): at the pass's end, what is left of the backlog. A gauge that kept the
   * listing's count would show a backlog the pass had just filed (cli.md, sync: the backlog now).
   */
  let left = new Map<string, number>();
  /** Filed in this pass: listed again while its filing was in flight, it is not left. */
  let filedNow = new Set<string>();
  // The backlog, like the last success, is registered when the first pass has ended without
  // error: before it the series are absent, not 0 (nor the part of the listing read so far), so
  // that delta() over the first hour compares the backlog with itself, not with nothing, and
  // RfsSyncBacklogGrowing does not fire after a fresh start while the backlog shrinks.
  const backlog = [
    new Gauge({
      name: 'rfs_sync_unsynced_recordings',
      help: 'COMPLETED, unsynced recordings the last pass listed (within --max-items) and did not file; absent before the first pass ends',
      registers: [],
      collect() {
        this.set(unsynced);
      },
    }),
    new Gauge({
      name: 'rfs_sync_oldest_unsynced_age_seconds',
      help: 'Age of the oldest COMPLETED, unsynced recording the last pass listed and did not file; 0 when none is left; absent before the first pass ends',
      registers: [],
      collect() {
        this.set(oldest === undefined ? 0 : Math.max(0, (clock.now() - oldest) / 1000));
      },
    }),
  ];

  const onAttempt = (message: unknown): void => {
    const a = message as { method: string; status: number | null; durationMs: number };
    requestSeconds.observe({ method: a.method, status: a.status === null ? 'network' : String(a.status) }, a.durationMs / 1000);
    if (a.status === 429) rateLimited.inc();
  };
  const onWait = (message: unknown): void => {
    const w = message as WaitMessage;
    waits.inc({ kind: w.kind });
    waitSeconds.inc({ kind: w.kind }, w.ms / 1000);
  };
  subscribe(ATTEMPT_CHANNEL, onAttempt);
  subscribe(WAIT_CHANNEL, onWait);

  return {
    registry,
    journalOpened(states) {
      journal = states;
    },
    passStarted() {
      left = new Map();
      filedNow = new Set();
    },
    passEnded(_pass, end) {
      passes.inc({ result: end.interrupted ? 'interrupted' : end.error === undefined ? 'ok' : 'failed' });
      passSeconds.observe(end.durationMs / 1000);
      if (end.error === undefined && !end.interrupted) {
        if (!succeeded) for (const metric of [lastSuccess, ...backlog]) registry.registerMetric(metric);
        succeeded = true;
        lastSuccess.set(clock.now() / 1000);
        // What the pass listed less what it filed: a pass that listed nothing found no backlog,
        // one that filed everything left none. One cut short keeps what it knew.
        unsynced = left.size;
        oldest = undefined;
        for (const created of left.values()) if (!Number.isNaN(created) && (oldest === undefined || created < oldest)) oldest = created;
      }
    },
    listed(item) {
      if (filedNow.has(item.id)) return;
      const created = Date.parse(item.createdAt);
      left.set(item.id, created);
      // While a pass lists, the gauges already show what it found so far, if more (or older).
      unsynced = Math.max(unsynced, left.size);
      if (!Number.isNaN(created) && (oldest === undefined || created < oldest)) oldest = created;
    },
    commandStarted() {
      running.inc();
      const started = performance.now();
      return (end) => {
        running.dec();
        const outcome = end.timedOut ? 'timeout' : end.code === 0 ? 'ok' : 'failed';
        commandSeconds.observe({ outcome }, (performance.now() - started) / 1000);
      };
    },
    result(r) {
      if (r.ok) {
        left.delete(String(r.id));
        filedNow.add(String(r.id));
      }
      if (r.ok) filed.inc();
      else failed.inc({ stage: FAILURE_STAGES.find((s) => s === r.stage) ?? 'command' /* pass.ts names a stage on every failure */ });
    },
    parked() {
      parked.inc();
    },
    async close() {
      unsubscribe(ATTEMPT_CHANNEL, onAttempt);
      unsubscribe(WAIT_CHANNEL, onWait);
    },
  };
}
