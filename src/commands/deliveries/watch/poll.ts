// One poll of `deliveries watch`, for both of its faces (run.ts off a terminal, screen.ts on
// one): which subscriptions exist, the census of its lists, the changes since the poll before
// and the subscriptions that started failing or recovered, every request within watch's budget
// (api/budget.ts). After each poll, how long to wait: the interval asked for, or longer when the
// poll's cost needs it to keep to the budget; that is the interval watch then shows.
import type { SubscriptionCheck } from '../../../api/subscriptions.js';
import type { ApiClient } from '../../../api/types.js';
import type { Clock } from '../../../core/clock.js';
import { DELIVERY_STATUSES } from '../../../shared/vocabulary.js';
import type { Context } from '../../context.js';
import { hiddenSubscriptionsNotice } from '../../../api/delivery-evidence.js';
import { incompleteNotice } from '../bounds.js';
import { type Slice, takeCensus } from '../census.js';
import { applyDeliveryFilter, readDeliveryFilter } from '../filters.js';
import { knowSubscriptions } from '../known-subscriptions.js';
import { sanitize } from '../../../core/sanitize.js';
import { RequestBudget, type Throttled, gatedByBudget } from '../../../api/budget.js';
import { type StatusChange, StatusTracker, type SubscriptionEvent, SubscriptionHealth } from './changes.js';
import type { WatchOptions } from './run.js';

/**
 * What Ctrl-C, SIGTERM or SIGHUP means for a watch, after the interruption's words (exit 130):
 * it runs until stopped, so it did not stop "before finishing" (cli.md, deliveries watch).
 */
export const WATCH_STOPPED = 'watch stopped';

export interface PollResult {
  live: SubscriptionCheck | undefined;
  slices: Slice[];
  changes: StatusChange[];
  events: SubscriptionEvent[];
  at: number;
  /** The notice of a filtered result drawn from a full list (bounds.ts), when there is one. */
  incomplete: string | undefined;
  /** The notice that full lists may hide subscriptions rfs has not seen, when they may. */
  hidden: string | undefined;
}

/** The pace watch keeps, as it shows it. */
export interface Pace {
  /** Between the start of one poll and the next. */
  intervalMs: number;
  /** Requests the last poll took (0 before the first). */
  requests: number;
  budget: number;
  throttled: Throttled | undefined;
}

export class WatchPoller {
  readonly client: ApiClient;
  private readonly budget: RequestBudget;
  private readonly tracker = new StatusTracker();
  private readonly health = new SubscriptionHealth();
  private readonly unlisten: () => void;
  private last: Pace;
  private startedAt: number | undefined;
  private readonly clock: Clock;
  private futureTold = false;

  constructor(
    private readonly ctx: Context,
    client: ApiClient,
    private readonly o: WatchOptions,
  ) {
    this.clock = ctx.clock;
    this.budget = new RequestBudget(o.budget, this.clock);
    this.unlisten = this.budget.listen();
    this.client = gatedByBudget(client, this.budget);
    this.last = { intervalMs: o.intervalMs, requests: 0, budget: o.budget, throttled: undefined };
  }

  /** `live`: list the subscriptions too (every poll of the screen; off it, without --subscription). */
  async poll(signal: AbortSignal, live: boolean): Promise<PollResult> {
    this.startedAt = this.clock.now();
    this.budget.takeCount();
    try {
      // The live subscriptions and the remembered deleted ones (their FAILED deliveries behind a full list).
      const known = live ? await knowSubscriptions(this.ctx, this.client) : undefined;
      const {
        slices: listed,
        workspaceFull,
        refused,
      } = await takeCensus(this.client, {
        statuses: DELIVERY_STATUSES,
        subscriptionId: this.o.subscriptionId,
        known: known?.ids ?? [],
        signal,
      });
      await known?.learn(listed, refused);
      const at = this.clock.now();
      // Durations (--since 30m) count back from each poll: the window moves with the watch.
      const filter = readDeliveryFilter(this.o.filterFlags, at);
      const slices = listed.map((s) => ({ ...s, deliveries: applyDeliveryFilter(s.deliveries, filter) }));
      const deliveries = slices.flatMap((s) => s.deliveries);
      const changes = this.tracker.poll(deliveries, at);
      const future = this.tracker.future;
      if (future !== undefined && !this.futureTold) {
        // Said once: such a row moves nothing (changes.ts), and it may stay listed for good.
        this.futureTold = true;
        this.ctx.ui.notice(
          `delivery ${sanitize(future.id)} shows an attempt at ${sanitize(future.at)}, in the future by this machine's clock: that time is not taken as evidence of when it changed`,
        );
      }
      const events = this.health.poll(deliveries, changes, at);
      return {
        live: known,
        slices,
        changes,
        events,
        at,
        incomplete: incompleteNotice(filter, fullLists(listed)),
        hidden: workspaceFull.length > 0 ? hiddenSubscriptionsNotice(workspaceFull) : undefined,
      };
    } finally {
      this.pace();
    }
  }

  /** The pace after the last poll (also after one that failed: its requests counted too). */
  get current(): Pace {
    return this.last;
  }

  /** How long to wait now before the next poll. */
  waitMs(): number {
    const since = this.startedAt === undefined ? 0 : this.clock.now() - this.startedAt;
    return Math.max(0, this.last.intervalMs - since);
  }

  close(): void {
    this.unlisten();
  }

  private pace(): void {
    const requests = this.budget.takeCount();
    this.last = {
      intervalMs: this.budget.spacing(requests, this.o.intervalMs),
      requests,
      budget: this.budget.current(),
      throttled: this.budget.throttled(),
    };
  }
}

/** "every 20 s (4 requests a poll, budget 12 a minute)", or what a 429 made of it. */
export function paceText(p: Pace): string {
  const every = `every ${secondsText(p.intervalMs)} s`;
  if (p.throttled !== undefined) return `${every} (the server answered 429: budget lowered to ${p.throttled.perMinute} a minute)`;
  if (p.requests === 0) return `${every} at most (budget ${p.budget} requests a minute)`;
  return `${every} (${p.requests} request${p.requests === 1 ? '' : 's'} a poll, budget ${p.budget} a minute)`;
}

function secondsText(ms: number): string {
  const s = ms / 1000;
  return s >= 10 ? String(Math.round(s)) : String(Math.round(s * 10) / 10);
}

/** `the FAILED list`, `the FAILED list of wh_…`: the lists that came back full, as summary names them. */
function fullLists(slices: readonly Slice[]): string[] {
  return slices.filter((s) => s.full).map((s) => `the ${s.status} list${s.listedFor === undefined ? '' : ` of ${sanitize(s.listedFor)}`}`);
}
