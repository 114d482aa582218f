// The Prometheus metrics of a long-running sync (cli.md, sync, --metrics), kept by prom-client
// in a registry of this run's own. Loaded only when --metrics is given: prom-client is not
// part of any other command's start-up.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ATTEMPT_CHANNEL, WAIT_CHANNEL, type WaitMessage } from '../api/client.js';
import type { Clock } from '../core/clock.js';
import type { SyncObserver } from './observer.js';

export interface SyncMetrics extends SyncObserver {
  readonly registry: Registry;
}

export function createSyncMetrics(clock: Clock): SyncMetrics {
  const registry = new Registry();
  const registers = [registry];
  const passes = new Counter({
    name: 'rfs_sync_passes_total',
    help: 'Passes ended, by result: ok, failed (a pass-level error) or interrupted',
    labelNames: ['result'] as const,
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
  const lastSuccess = new Gauge({
    name: 'rfs_sync_last_success_timestamp_seconds',
    help: 'When the last pass without a pass-level error ended (Unix time); 0 before the first',
    registers,
  });
  /** The oldest creation time among the recordings the last listing found unsynced. */
  let oldest: number | undefined;
  let listing: number | undefined;
  new Gauge({
    name: 'rfs_sync_oldest_unsynced_age_seconds',
    help: 'Age of the oldest COMPLETED, unsynced recording the last listing found; 0 when it found none',
    registers,
    collect() {
      this.set(oldest === undefined ? 0 : Math.max(0, (clock.now() - oldest) / 1000));
    },
  });
  passes.inc({ result: 'ok' }, 0);

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
    passStarted() {
      listing = undefined;
    },
    passEnded(_pass, end) {
      passes.inc({ result: end.interrupted ? 'interrupted' : end.error === undefined ? 'ok' : 'failed' });
      if (end.error === undefined && !end.interrupted) {
        lastSuccess.set(clock.now() / 1000);
        // A pass that listed nothing found no backlog; one cut short keeps what it knew.
        oldest = listing;
      }
    },
    listed(item) {
      const created = Date.parse(item.createdAt);
      if (Number.isNaN(created)) return;
      listing = listing === undefined ? created : Math.min(listing, created);
      // While a pass lists, the gauge already shows the oldest found so far, if older.
      if (oldest === undefined || created < oldest) oldest = created;
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
      if (r.ok) filed.inc();
      else failed.inc({ stage: typeof r.stage === 'string' ? r.stage : 'unknown' });
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
