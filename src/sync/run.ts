// The orchestration of `rfs sync` (cli.md, sync): the --watch loop, the webhook listener of
// --listen, the dry run, and who observes the run. The command (commands/sync/) turns flags into
// SyncOptions and calls runSync once.
import { performance } from 'node:perf_hooks';
import type { ApiClient } from '../api/types.js';
import { ResultWriter } from '../batch/results.js';
import type { Session } from '../core/context.js';
import { EXIT } from '../core/errors.js';
import { interruptionText, stopSignalOf } from '../core/interrupt.js';
import { sanitize } from '../core/sanitize.js';
import { writeList } from '../output/list-writer.js';
import { Backoff, type BackoffOptions, describePending, standingOf } from './backoff.js';
import type { Address } from './health.js';
import { Journal, JournalLostError } from './journal.js';
import { passItems } from './listing.js';
import { type Observing, startObserving } from './observing.js';
import { type PassOutcome, runPass, type SyncSettings } from './pass.js';

/** What a sync needs of the run: the session, and the API client on first use. */
export interface SyncSession extends Session {
  api: () => Promise<ApiClient>;
  /** The --listen secret, once read, is redacted on stdout and stderr like the key. */
  knowSecret: (secret: string) => void;
}

export interface SyncOptions extends SyncSettings {
  watch: boolean;
  intervalMs: number;
  listenPort?: number;
  secretEnv?: string;
  dryRun: boolean;
  maxAttempts: number;
  retryParked: boolean;
  metrics?: Address;
  logFormat: 'text' | 'json';
}

/**
 * `rfs sync` (cli.md, sync): a pass, or passes until Ctrl-C with --watch (woken early by a
 * verified webhook with --listen), observed by --metrics and --log-format json; or with
 * --dry-run what one pass would do. The exit code of the run.
 */
export async function runSync(ctx: SyncSession, flags: SyncOptions, journalPath: string): Promise<number> {
  if (flags.dryRun) return dryRun(ctx, flags, journalPath);

  // The secret is read before anything else happens, so a missing one fails fast (exit 2).
  const secret = flags.listenPort === undefined ? undefined : await readListenSecret(ctx, flags.secretEnv);
  // Before the journal is taken: a --metrics port in use is refused (exit 2) with nothing done.
  const watching = await startObserving(ctx, flags);
  try {
    return await syncWith(ctx, flags, journalPath, secret, watching);
  } finally {
    await watching.close();
  }
}

async function syncWith(
  ctx: SyncSession,
  flags: SyncOptions,
  journalPath: string,
  secret: string | undefined,
  watching: Observing,
): Promise<number> {
  const { observer, passSummary, runSummary } = watching;
  const client = await ctx.api();
  const journal = Journal.open(journalPath, ctx.clock);
  try {
    observer.journalOpened(journal.states);
    journal.warnProblems(ctx.ui);
    const pending = describePending(journal);
    if (pending) ctx.ui.notice(`journal: ${pending}`);
    const backoff = backoffOf(ctx, flags, journal, (id, failures) => {
      // In JSON the `parked` event is this warning (level warn): one line, not two.
      watching.textWarning(`${sanitize(id)} is parked after ${failures} failures of its command: rfs sync --retry-parked runs it again`);
      observer.parked(id, failures);
    });
    const settings: SyncSettings = { ...flags, backoff, observer };

    const writer = new ResultWriter(ctx, (r) => ({
      label: String(r.id),
      done: `${r.replayed ? 'already filed' : 'filed'} as ${String(r.externalId)} (syncCount ${String(r.syncCount)}${r.from === 'journal' ? ', from the journal' : ''})`,
    }));

    // Aborted by a verified delivery, to cut the --watch interval short.
    let wake: AbortController | undefined;
    let triggered = false;
    const trigger = (): void => {
      triggered = true;
      wake?.abort();
    };
    const receiver = secret === undefined ? undefined : await startListener(ctx, flags.listenPort ?? 0, secret, trigger);
    try {
      let anyFailed = false;
      for (let pass = 1; ; pass++) {
        triggered = false;
        let outcome: PassOutcome | undefined;
        backoff.startPass();
        observer.passStarted(pass);
        const began = performance.now();
        const ended = (o: { filed: number; failed: number; interrupted: boolean; interruptedDuring?: string; error?: unknown }): void =>
          observer.passEnded(pass, {
            filed: o.filed,
            failed: o.failed,
            waiting: backoff.waiting,
            parked: backoff.parked,
            interrupted: o.interrupted,
            ...(o.interrupted && o.error === undefined
              ? {
                  interruptedBy: interruptionText(stopSignalOf(ctx.signal)),
                  ...(o.interruptedDuring === undefined ? {} : { interruptedDuring: o.interruptedDuring }),
                  journal: journal.path,
                }
              : {}),
            ...(o.error === undefined ? {} : { error: o.error instanceof Error ? o.error.message : String(o.error) }),
            durationMs: Math.round(performance.now() - began),
          });
        try {
          outcome = await runPass(ctx, client, journal, settings, writer);
          ended(outcome);
        } catch (error) {
          ended({ filed: 0, failed: 0, interrupted: ctx.signal.aborted, error });
          if (error instanceof JournalLostError) {
            // What was done is in the result lines; the summary adds that nothing more will be.
            runSummary(
              `sync: ${writer.ok} filed, ${writer.failed} failed; stopped before the next recording: nothing more was run or filed`,
            );
            throw error;
          }
          if (!flags.watch) throw error;
          // A watcher outlives a failed pass (the service down for a while): say so, try again.
          ctx.ui.warn(
            `the pass failed: ${error instanceof Error ? error.message : String(error)}; trying again in ${flags.intervalMs / 1000} s`,
          );
          outcome = undefined;
        }
        if (outcome) {
          anyFailed ||= outcome.failed > 0;
          const parts = [`${outcome.filed} filed`, `${outcome.failed} failed`, ...backoff.summary()];
          const closed = writer.closedNote();
          if (closed) parts.push(closed);
          // The Ctrl-C rule (README, sync): 130 only when Ctrl-C cut a pass short. One that came
          // after the pass had handled every recording cut nothing: the pass ends as usual.
          if (outcome.interrupted) {
            // Named as everywhere else (cli.md, Exit codes: "terminated (SIGTERM)"); Ctrl-C, which
            // the person at the terminal just pressed, reads as before.
            const by = stopSignalOf(ctx.signal);
            const how = by === undefined || by === 'SIGINT' ? 'interrupted' : interruptionText(by);
            const during = outcome.interruptedDuring ? `; ${how} while ${outcome.interruptedDuring}` : `; ${how}`;
            passSummary(`sync: ${parts.join(', ')}${during}; the journal ${journal.path} holds what is pending`);
            return EXIT.INTERRUPTED;
          }
          if (!ctx.globals.quiet || outcome.failed > 0) passSummary(`sync: pass done: ${parts.join(', ')}`);
        }
        if (!flags.watch) return anyFailed ? EXIT.BATCH_FAILED : EXIT.OK;
        // Stopped between passes: nothing was cut short, as `webhooks listen` stops on Ctrl-C.
        // A service manager's log still gets a line saying why the sync ended (cli.md, sync).
        if (ctx.signal.aborted) return stoppedBetweenPasses(ctx.signal, watching);
        if (!triggered) {
          wake = new AbortController();
          // Rejected when woken or interrupted: either way the loop goes on to look at why.
          await ctx.clock.sleep(flags.intervalMs, AbortSignal.any([wake.signal, ctx.signal])).catch(() => undefined);
          wake = undefined;
        }
        if (ctx.signal.aborted) return stoppedBetweenPasses(ctx.signal, watching);
      }
    } finally {
      await receiver?.close();
    }
  } finally {
    journal.close();
  }
}

/**
 * The line of a --watch stopped between passes, text or a `stop` event; exit 0. It names the
 * reason the process gave its signal (main.ts: which signal), when it gave one; nothing was
 * interrupted (cli.md: 130 only when a pass was cut short).
 */
function stoppedBetweenPasses(signal: AbortSignal, watching: Observing): number {
  const reason: unknown = signal.reason;
  const why =
    typeof reason === 'string' && reason !== ''
      ? reason
      : reason instanceof Error && reason.name !== 'AbortError' && reason.message !== ''
        ? reason.message
        : undefined;
  watching.stopped(`sync: stopped between passes${why === undefined ? '' : ` (${why})`}; no pass was cut short`);
  return EXIT.OK;
}

/** The failure policy the flags ask for: a pass and its dry run leave out the same recordings. */
function backoffOf(ctx: SyncSession, flags: SyncOptions, journal: Journal, onParked?: BackoffOptions['onParked']): Backoff {
  const o: BackoffOptions = { maxAttempts: flags.maxAttempts, retryParked: flags.retryParked, wait: flags.watch, clock: ctx.clock };
  return new Backoff(journal, onParked === undefined ? o : { ...o, onParked });
}

async function readListenSecret(ctx: SyncSession, secretEnv: string | undefined): Promise<string> {
  const { readWebhookSecret } = await import('../webhooks/secret.js');
  return readWebhookSecret({ secretEnv, secretFile: undefined }, { env: ctx.io.env, onSecret: ctx.knowSecret });
}

async function startListener(ctx: SyncSession, port: number, secret: string, trigger: () => void) {
  const { startWebhookReceiver } = await import('../webhooks/receiver.js');
  const receiver = await startWebhookReceiver({
    host: '127.0.0.1',
    port,
    secret,
    toleranceSeconds: 300,
    onDelivery: (d) => {
      if (!d.valid) {
        ctx.ui.warn(`refused a delivery (${d.reason ?? 'invalid'}): ${d.explanation}`);
        return;
      }
      if (d.event === 'recording.completed') {
        ctx.ui.notice(`webhook: ${sanitize(d.recordingId ?? '?')} completed: starting a pass`);
        trigger();
      }
    },
  });
  ctx.ui.notice(`sync: listening for webhooks on ${receiver.url}`);
  return receiver;
}

async function dryRun(ctx: SyncSession, flags: SyncOptions, journalPath: string): Promise<number> {
  const journal = Journal.peek(journalPath, ctx.clock);
  journal.warnProblems(ctx.ui);
  const client = await ctx.api();
  const rows: { id: string; action: string; attempt: number; title: string | null; externalId: string | null }[] = [];
  // The pass's own items, in its order and within --max-items, and what the pass would leave out
  // (parked; waiting only in --watch) by the same rule, not counted in --max-items: what a pass would do now.
  const backoff = backoffOf(ctx, flags, journal);
  const skip = (id: string): boolean => {
    if (!backoff.skip(id)) return false;
    const state = journal.states.get(id);
    const parked = state !== undefined && standingOf(state).state === 'parked';
    rows.push({
      id,
      action: parked ? 'skip: parked' : 'skip: waiting',
      attempt: (state?.attempts ?? 0) + 1,
      title: null,
      externalId: null,
    });
    return true;
  };
  for await (const item of passItems(client, journal.states, { order: flags.order, maxItems: flags.maxItems, signal: ctx.signal, skip })) {
    if (item.from === 'journal') {
      rows.push({ id: item.id, action: 'file from journal', attempt: item.attempts, title: null, externalId: item.record.externalId });
    } else {
      const attempt = (journal.states.get(item.id)?.attempts ?? 0) + 1;
      rows.push({ id: item.id, action: 'run command', attempt, title: item.title, externalId: null });
    }
  }
  await writeList(ctx.io, ctx.globals.output, rows, {
    color: ctx.globals.color,
    columns: [
      { header: 'ID', value: (r) => r.id },
      { header: 'ACTION', value: (r) => r.action },
      { header: 'RFS_ATTEMPT', value: (r) => r.attempt, align: 'right' },
      { header: 'TITLE', value: (r) => r.title ?? r.externalId ?? '', flex: true },
    ],
  });
  ctx.ui.notice(`dry run: ${rows.length} recording(s) would be handled; nothing was run, filed or journaled`);
  return EXIT.OK;
}
