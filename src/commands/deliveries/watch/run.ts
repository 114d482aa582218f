// rfs deliveries watch (cli.md, deliveries): polls the deliveries lists within
// its budget (poll.ts, api/budget.ts) and prints one line per change of a delivery's status and one
// when a subscription starts failing or recovers, as `kubectl get -w` does: ndjson off a
// terminal, a readable line on one (with --quiet or -o on a terminal). Ctrl-C, SIGTERM or
// SIGHUP → 130 (the report names which), --max-time → 0. On a terminal: the full-screen view of
// screen.ts.
import { ApiError, CancelError, EXIT, type NetworkError, UsageError } from '../../../core/errors.js';
import { numberFlag } from '../../../core/flags.js';
import { sanitize } from '../../../core/sanitize.js';
import { writeOut } from '../../../output/list-writer.js';
import { safeJson } from '../../../output/safe-json.js';
import type { Context } from '../../context.js';
import { type FilterFlags, readDeliveryFilter } from '../filters.js';
import { MAX_BUDGET } from '../../../api/budget.js';
import { passingPollFailure, startDeadline, withSignal } from '../poll-limits.js';
import type { StatusChange, SubscriptionEvent } from './changes.js';
import type { Input } from './index.js';
import { type Pace, paceText, WATCH_STOPPED, WatchPoller } from './poll.js';

export interface WatchOptions {
  subscriptionId: string | undefined;
  /** The least time between two polls. */
  intervalMs: number;
  /** Requests a minute. */
  budget: number;
  /** --since, --until, --error as given: read again at each poll, so that durations count back from it. */
  filterFlags: FilterFlags;
  maxTimeMs: number | undefined;
}

export function options({ flags }: Input, ctx: Context): WatchOptions {
  const filterFlags: FilterFlags = { since: flags.since, until: flags.until, error: flags.error };
  // Checked before anything is sent (exit 2).
  readDeliveryFilter(filterFlags, ctx.clock.now());
  const interval = numberFlag('--interval', flags.interval, { min: 0.1, max: 3600 });
  const maxTime = numberFlag('--max-time', flags.maxTime, { min: 0, max: 31_536_000 });
  const budget = numberFlag('--budget', flags.budget, { min: 1, max: MAX_BUDGET, integer: true });
  if (flags.subscription !== undefined && flags.subscription.trim() === '') throw new UsageError('--subscription needs an id');
  return {
    subscriptionId: flags.subscription,
    intervalMs: Math.round(interval * 1000),
    budget,
    filterFlags,
    maxTimeMs: maxTime === undefined ? undefined : Math.round(maxTime * 1000),
  };
}

function clockTime(iso: string): string {
  return new Date(iso).toISOString().slice(11, 19);
}

function line(change: StatusChange | SubscriptionEvent, asText: boolean): string {
  if (!asText) return `${safeJson(change)}\n`;
  if (change.type === 'subscription') return `${clockTime(change.time)}  ${sanitize(change.subscriptionId)}  ${change.state}\n`;
  const error = change.lastError === undefined ? '' : `  ${sanitize(change.lastError)}`;
  return `${clockTime(change.time)}  ${change.id}  ${sanitize(change.subscriptionId)}  ${change.from ?? 'new'} → ${change.to}${error}\n`;
}

/** A poll that failed for a reason that passes (poll-limits.ts): `{"type":"poll-failed",…}`, or a readable line. */
function failedLine(error: ApiError | NetworkError, at: number, asText: boolean): string {
  const time = new Date(at).toISOString();
  if (asText) return `${clockTime(time)}  poll failed: ${sanitize(error.message)}; trying again\n`;
  const status = error instanceof ApiError ? error.status : null;
  return `${safeJson({ type: 'poll-failed', time, status, error: error.message })}\n`;
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
  const { clock, signal } = ctx;
  const asText = ctx.globals.output === 'table' && ctx.io.stdoutIsTTY;
  const started = clock.now();
  // --max-time ends the run at once, a request in flight included.
  const endsAt = o.maxTimeMs === undefined ? Number.POSITIVE_INFINITY : started + o.maxTimeMs;
  const deadline = startDeadline(clock, endsAt);
  const requests = AbortSignal.any([signal, deadline.signal]);
  const poller = new WatchPoller(ctx, withSignal(await ctx.api(), requests), o);
  let shown: string | undefined;
  let incomplete: string | undefined;
  let hiddenTold = false;
  // Said once at the start and again whenever the pace changes (a fuller list, a 429).
  const tell = (pace: Pace): void => {
    const text = paceText(pace);
    if (text === shown) return;
    ctx.ui.notice(shown === undefined ? `watching deliveries ${text}; Ctrl-C to stop` : `now polling ${text}`);
    shown = text;
  };
  try {
    for (;;) {
      // Which subscriptions exist, once per poll: a full list is listed again per subscription.
      const polled = await poller.poll(requests, o.subscriptionId === undefined).catch(async (error: unknown) => {
        if (signal.aborted || deadline.passed() || !passingPollFailure(error)) throw error;
        // As the screen does: said, and tried again after the wait the budget asks for.
        await writeOut(ctx.io.stdout, failedLine(error, clock.now(), asText));
        return undefined;
      });
      if (polled !== undefined) {
        // A subscription's line after the delivery that made it.
        for (const change of polled.changes) await writeOut(ctx.io.stdout, line(change, asText));
        for (const event of polled.events) await writeOut(ctx.io.stdout, line(event, asText));
        tell(poller.current);
        if (polled.incomplete !== undefined && polled.incomplete !== incomplete) ctx.ui.notice(polled.incomplete);
        incomplete = polled.incomplete;
        // Said once: the lists stay full for as long as the incident lasts.
        if (polled.hidden !== undefined && !hiddenTold) ctx.ui.notice(polled.hidden);
        hiddenTold ||= polled.hidden !== undefined;
      } else tell(poller.current);
      if (deadline.passed()) return EXIT.OK;
      await clock.sleep(Math.min(poller.waitMs(), endsAt - clock.now()), requests);
      if (deadline.passed()) return EXIT.OK;
    }
  } catch (error) {
    if (signal.aborted) throw new CancelError('stopped watching', { stopped: WATCH_STOPPED });
    if (deadline.passed()) return EXIT.OK;
    throw error;
  } finally {
    deadline.dispose();
    poller.close();
  }
}
