// rfs deliveries watch (cli.md, deliveries; issue 27): polls the deliveries lists (through the
// one client, so within --rate) and prints one line per change of a delivery's status, as
// `kubectl get -w` does: ndjson off a terminal, a readable line on one (with --quiet or -o on a
// terminal). Ctrl-C → 130, --max-time → 0. On a terminal: the full-screen view of screen.ts.
import { checkSubscriptions } from '../../../api/subscriptions.js';
import { CancelError, EXIT, UsageError } from '../../../core/errors.js';
import { numberFlag } from '../../../core/flags.js';
import { sanitize } from '../../../core/sanitize.js';
import { writeOut } from '../../../output/list-writer.js';
import { safeJson } from '../../../output/safe-json.js';
import { DELIVERY_STATUSES } from '../../../shared/vocabulary.js';
import type { Context } from '../../context.js';
import { takeCensus } from '../census.js';
import { type StatusChange, StatusTracker } from './changes.js';
import type { Input } from './index.js';

export interface WatchOptions {
  subscriptionId: string | undefined;
  intervalMs: number;
  maxTimeMs: number | undefined;
}

export function options({ flags }: Input): WatchOptions {
  const interval = numberFlag('--interval', flags.interval, { min: 0.1, max: 3600 });
  const maxTime = numberFlag('--max-time', flags.maxTime, { min: 0, max: 31_536_000 });
  if (flags.subscription !== undefined && flags.subscription.trim() === '') throw new UsageError('--subscription needs an id');
  return {
    subscriptionId: flags.subscription,
    intervalMs: Math.round(interval * 1000),
    maxTimeMs: maxTime === undefined ? undefined : Math.round(maxTime * 1000),
  };
}

function clockTime(iso: string): string {
  return new Date(iso).toISOString().slice(11, 19);
}

function line(change: StatusChange, asText: boolean): string {
  if (!asText) return `${safeJson(change)}\n`;
  const error = change.lastError === undefined ? '' : `  ${sanitize(change.lastError)}`;
  return `${clockTime(change.time)}  ${change.id}  ${sanitize(change.subscriptionId)}  ${change.from ?? 'new'} → ${change.to}${error}\n`;
}

/** The full-screen view: both ends of a terminal, a table, and not --quiet. */
function wantsScreen(ctx: Context): boolean {
  return ctx.io.stdoutIsTTY && ctx.io.stderrIsTTY && ctx.globals.output === 'table' && !ctx.globals.quiet;
}

export async function run(ctx: Context, o: WatchOptions): Promise<number> {
  if (wantsScreen(ctx)) {
    // The view and its library load only here (ARCHITECTURE.md, "How rfs starts").
    const { runScreen } = await import('./screen.js');
    return runScreen(ctx, o);
  }
  const client = await ctx.api();
  const { clock, signal } = ctx;
  const asText = ctx.globals.output === 'table' && ctx.io.stdoutIsTTY;
  const started = clock.now();
  const deadline = o.maxTimeMs === undefined ? Number.POSITIVE_INFINITY : started + o.maxTimeMs;
  const tracker = new StatusTracker();
  ctx.ui.notice(`watching deliveries every ${o.intervalMs / 1000} s; Ctrl-C to stop`);
  try {
    for (;;) {
      // Which subscriptions exist, once per poll: a full list is listed again per subscription.
      const live = o.subscriptionId === undefined ? await checkSubscriptions(client, signal) : undefined;
      const slices = await takeCensus(client, {
        statuses: DELIVERY_STATUSES,
        subscriptionId: o.subscriptionId,
        known: live?.byId.keys() ?? [],
        signal,
      });
      const changes = tracker.poll(
        slices.flatMap((s) => s.deliveries),
        clock.now(),
      );
      for (const change of changes) await writeOut(ctx.io.stdout, line(change, asText));
      const left = deadline - clock.now();
      if (left <= 0) return EXIT.OK;
      await clock.sleep(Math.min(o.intervalMs, left), signal);
      if (clock.now() >= deadline) return EXIT.OK;
    }
  } catch (error) {
    if (signal.aborted) throw new CancelError('stopped watching (Ctrl-C)');
    throw error;
  }
}
