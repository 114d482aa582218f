// Who watches one `rfs sync` (cli.md, sync): the JSON event log of --log-format json, and the
// /metrics and /healthz of --metrics. prom-client loads only when --metrics is given.
import { beyondLoopbackWarning } from '../core/listen.js';
import { writeSummary } from '../batch/runner.js';
import type { Session } from '../core/context.js';
import { createEventLog, type EventLog, speakJson } from './events-log.js';
import { type Address, Health, startMonitorServer } from './health.js';
import { observers, type SyncObserver } from './observer.js';

export interface Observing {
  observer: SyncObserver;
  /** Set with --log-format json. */
  log?: EventLog;
  /** The pass's summary line: text on stderr, or a `summary` event. */
  summary(text: string): void;
  close(): Promise<void>;
}

export async function startObserving(
  ctx: Session,
  o: { metrics?: Address; logFormat: 'text' | 'json'; intervalMs: number },
): Promise<Observing> {
  const list: SyncObserver[] = [];
  const closers: (() => Promise<void>)[] = [];
  let log: EventLog | undefined;
  if (o.logFormat === 'json') {
    log = createEventLog(ctx.io, ctx.ui, ctx.clock);
    speakJson(ctx.ui, log);
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
  return {
    observer,
    ...(log === undefined ? {} : { log }),
    summary: (text) => (log ? log.emit('info', 'summary', { message: text }) : writeSummary(ctx.io, text)),
    close: async () => {
      for (const close of closers) await close();
      await observer.close();
    },
  };
}
