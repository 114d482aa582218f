// Who watches one `rfs sync` (cli.md, sync): the JSON event log of --log-format json, and the
// /metrics and /healthz of --metrics. prom-client loads only when --metrics is given.
import { interruptionText, stopSignalOf } from '../core/interrupt.js';
import { beyondLoopbackWarning } from '../core/listen.js';
import { writeSummary } from '../batch/runner.js';
import type { Session } from '../core/context.js';
import { createJsonLog } from '../output/json-log.js';
import { createEventLog, type EventLog } from './events-log.js';
import { type Address, Health, startMonitorServer } from './health.js';
import { observers, type SyncObserver } from './observer.js';

export interface Observing {
  observer: SyncObserver;
  /** Set with --log-format json. */
  log?: EventLog;
  /**
   * The pass's summary line on stderr. With --log-format json the pass-end event already says
   * it (counts, and how an interrupted pass stopped): no second line repeats it.
   */
  passSummary(text: string): void;
  /** The run's summary when it stops for good between recordings: text on stderr, or a `summary` event. */
  runSummary(text: string): void;
  /** A warning the sync's own events already carry in JSON (parked): text on stderr only. */
  textWarning(text: string): void;
  /** The run stopped between passes (Ctrl-C, SIGTERM): text on stderr, or a `stop` event. */
  stopped(text: string): void;
  close(): Promise<void>;
}

export async function startObserving(
  ctx: Session,
  o: { metrics?: Address; logFormat: 'text' | 'json'; intervalMs: number; execTimeoutMs: number },
): Promise<Observing> {
  const list: SyncObserver[] = [];
  const closers: (() => Promise<void>)[] = [];
  let running = 0;
  list.push({
    ...IGNORING,
    commandStarted: () => {
      running += 1;
      return () => {
        running -= 1;
      };
    },
  });
  let log: EventLog | undefined;
  if (o.logFormat === 'json') {
    // The run's Ui speaks JSON already (cli/run.ts): these are the sync's own events.
    log = createEventLog(createJsonLog((line) => ctx.io.stderr.write(line), ctx.ui.redact, ctx.clock));
    list.push(log);
  }
  if (o.metrics !== undefined) {
    const { createSyncMetrics } = await import('./metrics.js');
    const metrics = createSyncMetrics(ctx.clock);
    const health = new Health(ctx.clock, o.intervalMs);
    list.push(metrics, health);
    try {
      const server = await startMonitorServer(o.metrics, health, async () => ({
        contentType: metrics.registry.contentType,
        body: await metrics.registry.metrics(),
      }));
      closers.push(() => server.close());
      ctx.ui.notice(`sync: metrics on ${server.url}/metrics, health on ${server.url}/healthz`);
      const given = o.metrics.host.includes(':') ? `[${o.metrics.host}]` : o.metrics.host;
      const exposed = beyondLoopbackWarning(
        o.metrics.host,
        `--metrics ${given}:${o.metrics.port}`,
        'the metrics and health endpoints (no key)',
      );
      if (exposed !== undefined) ctx.ui.warn(exposed);
    } catch (error) {
      for (const observer of list) await observer.close();
      throw error;
    }
  }
  const observer = observers(list);
  // The first Ctrl-C, SIGTERM or SIGHUP says (naming it) at once what rfs now waits for (cli.md, sync): a second one
  // ends rfs and the commands with it (main.ts, exec.ts).
  // With no command running, nothing makes it wait: the run stops at once and its summary says how.
  const onInterrupt = (): void => {
    const n = running;
    if (n === 0) return;
    const by = stopSignalOf(ctx.signal);
    // Ctrl-C is what the person at the terminal just pressed; another signal is named.
    const how = by === undefined || by === 'SIGINT' ? 'interrupted' : interruptionText(by);
    const what = `${how}: waiting for ${n} running command${n === 1 ? '' : 's'} (at most ${o.execTimeoutMs / 1000} s, --exec-timeout); Ctrl-C again stops them`;
    if (log) log.emit('warn', 'interrupt', what, { running: n });
    else writeSummary(ctx.ui, ctx.ui.redact(what));
  };
  ctx.signal.addEventListener('abort', onInterrupt, { once: true });
  return {
    observer,
    ...(log === undefined ? {} : { log }),
    passSummary: (text) => {
      if (!log) writeSummary(ctx.ui, text);
    },
    runSummary: (text) => (log ? log.emit('info', 'summary', text) : writeSummary(ctx.ui, text)),
    textWarning: (text) => {
      if (!log) ctx.ui.warn(text);
    },
    stopped: (text) => (log ? log.emit('info', 'stop', text) : writeSummary(ctx.ui, text)),
    close: async () => {
      ctx.signal.removeEventListener('abort', onInterrupt);
      for (const close of closers) await close();
      await observer.close();
    },
  };
}

/** An observer that takes no notice of anything: a base for one that watches a few things. */
const IGNORING: SyncObserver = {
  journalOpened: () => undefined,
  passStarted: () => undefined,
  passEnded: () => undefined,
  listed: () => undefined,
  commandStarted: () => () => undefined,
  result: () => undefined,
  parked: () => undefined,
  close: async () => undefined,
};
