// rfs deliveries replay <id>…  and  --all-failed (cli.md, deliveries): one result line per
// delivery, going on past failures, a summary on stderr, exit 8 when any replay failed.
// --all-failed goes on in rounds past the list's 50 rows (rounds.ts); --wait then polls until
// each replayed delivery has left PENDING (wait.ts). Behind a full FAILED list of the workspace,
// each live subscription's is listed too (the census of api/delivery-evidence.ts), so no busy or
// deleted subscription hides another's. --since, --until and --error (filters.ts) narrow
// --all-failed to the FAILED deliveries they match; a replay refused because the subscription
// was deleted says so, found through the remembered subscriptions even behind a full FAILED list.
import {
  checkSubscriptions,
  deletedSubscriptionText,
  splitByDeletedSubscription,
  subscriptionOf,
  type SubscriptionCheck,
} from '../../../api/subscriptions.js';
import {
  attemptTimeOf,
  DELIVERY_LIST_ROWS,
  DeliveryFacts,
  isFullDeliveryList,
  type ListAnswer,
  listAnswer,
  takeCensus,
  showsStatus,
  CLOCK_SKEW_MS,
} from '../../../api/delivery-evidence.js';
import { joinWords } from '../../../core/words.js';
import { listDeliveries, replayDelivery } from '../../../api/webhooks.js';
import { Progress } from '../../../batch/progress.js';
import { itemError, ResultWriter, type ItemResult } from '../../../batch/results.js';
import { runBatch, writeSummary } from '../../../batch/runner.js';
import type { Context } from '../../context.js';
import { ApiError, EXIT, UsageError } from '../../../core/errors.js';
import { numberFlag } from '../../../core/flags.js';
import { canPrompt } from '../../../core/io.js';
import { sanitize } from '../../../core/sanitize.js';
import { deliveryColumns } from '../../../output/deliveries.js';
import { field } from '../../../output/fields.js';
import { writeList } from '../../../output/list-writer.js';
import { renderTable } from '../../../output/table.js';
import { confirmAction } from '../../../prompt/confirm.js';
import type { Delivery } from '../../../shared/schemas.js';
import { countText, incompleteNotice } from '../bounds.js';
import { checkDeliveryIds } from '../delivery-id.js';
import {
  applyDeliveryFilter,
  describeDeliveryFilter,
  type DeliveryFilter,
  isFiltering,
  readDeliveryFilter,
  selectsByAttempt,
} from '../filters.js';
import { type KnownSubscriptions, knowSubscriptions } from '../known-subscriptions.js';
import type { ApiClient } from '../../../api/types.js';
import type { Input } from './index.js';
import { FailedRounds } from './rounds.js';
import { MAX_BUDGET, RequestBudget, gatedByBudget } from '../../../api/budget.js';
import { DEFAULT_BUDGET } from '../filter-flags.js';
import { type Outcome, type Replayed, waitForOutcomes } from './wait.js';

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 300;

export interface ReplayOptions {
  /** The ids given; empty with --all-failed. */
  ids: string[];
  allFailed: boolean;
  subscriptionId: string | undefined;
  dryRun: boolean;
  /** --max: at most this many replays in the run. */
  max: number | undefined;
  wait: boolean;
  waitTimeoutSeconds: number;
  /** --budget: requests a minute while waiting, retries included (watch's budget). */
  budget: number;
  /** --since, --until, --error: with --all-failed, only the FAILED deliveries they match. */
  filter: DeliveryFilter;
}

export function options({ args: [ids], flags }: Input, ctx: Context): ReplayOptions {
  const allFailed = flags.allFailed === true;
  const dryRun = flags.dryRun === true;
  const wait = flags.wait === true;
  if (allFailed && ids.length > 0) throw new UsageError('give delivery ids or --all-failed, not both');
  if (!allFailed && ids.length === 0) throw new UsageError('give one or more delivery ids, or --all-failed');
  checkDeliveryIds(ids);
  if (!allFailed && (flags.subscription !== undefined || dryRun || flags.max !== undefined)) {
    throw new UsageError('--subscription, --dry-run and --max go with --all-failed');
  }
  const filter = readDeliveryFilter(flags, ctx.clock.now());
  if (!allFailed && isFiltering(filter)) throw new UsageError('--since, --until and --error go with --all-failed');
  if (dryRun && wait) throw new UsageError('--dry-run replays nothing, so there is nothing to --wait for');
  if (!wait && flags.waitTimeout !== undefined) throw new UsageError('--wait-timeout goes with --wait');
  if (!wait && flags.budget !== undefined) throw new UsageError('--budget goes with --wait');
  return {
    ids,
    allFailed,
    subscriptionId: flags.subscription,
    dryRun,
    max: numberFlag('--max', flags.max, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }),
    wait,
    waitTimeoutSeconds:
      numberFlag('--wait-timeout', flags.waitTimeout, { min: 1, max: 86_400, integer: true }) ?? DEFAULT_WAIT_TIMEOUT_SECONDS,
    budget: numberFlag('--budget', flags.budget, { min: 1, max: MAX_BUDGET, integer: true }) ?? DEFAULT_BUDGET,
    filter,
  };
}

/** The result rows' id column: the service's delivery ids are dlv_ and 20 characters. */
const DELIVERY_LABEL = { header: 'DELIVERY', minWidth: 24 };

/** `3 FAILED deliveries`, `50+ FAILED deliveries` (a lower bound is never one delivery). */
const deliveries = (n: number, isLowerBound = false): string =>
  `${countText({ count: n, countIsLowerBound: isLowerBound })} FAILED deliver${n === 1 && !isLowerBound ? 'y' : 'ies'}`;

/**
 * The FAILED deliveries of deleted subscriptions, which the service keeps listing but never
 * replays (404): left out of --all-failed and counted, so that a run can end clean. A count
 * drawn from a list that came back full is a lower bound (`50+`).
 */
class Orphans {
  private readonly ids = new Set<string>();
  private readonly subscriptions = new Set<string>();
  private lowerBound = false;
  private check: Promise<SubscriptionCheck> | undefined;

  constructor(private readonly load: () => Promise<SubscriptionCheck>) {}

  /** Which subscriptions exist: GET /webhooks, asked once per run, by the listings too (listFailed). */
  live(): Promise<SubscriptionCheck> {
    this.check ??= this.load();
    return this.check;
  }

  /** `listed` without the deliveries of deleted subscriptions, which are counted; `fromFull`: rows of a list that came back full. */
  async leaveOut(listed: readonly Delivery[], fromFull: ReadonlySet<string> = new Set()): Promise<Delivery[]> {
    if (!listed.some((d) => subscriptionOf(d) !== '')) return [...listed];
    const { live, orphaned } = splitByDeletedSubscription(listed, await this.live());
    for (const d of orphaned) {
      this.ids.add(d.id);
      this.subscriptions.add(subscriptionOf(d));
      if (fromFull.has(d.id)) this.lowerBound = true;
    }
    return live;
  }

  /** For the summary: how many were left out and why; undefined when none. */
  describe(): string | undefined {
    if (this.ids.size === 0) return undefined;
    const subs = [...this.subscriptions].map((id) => deletedSubscriptionText(sanitize(id)));
    return `${deliveries(this.ids.size, this.lowerBound)} left out: ${subs.join(', ')} (the service cannot replay them)`;
  }
}

/** What the lists show that may explain a 404: listed once per run, at the first 404. */
interface NotFoundLists {
  known: KnownSubscriptions;
  answers: ListAnswer[];
}

/**
 * Why the service answered 404 to a replay: the words of the rule when a list shows the
 * delivery under a deleted subscription, else the service's own title and what the 404 may be
 * (cli.md, "Evidence, not inference": never as a fact). The lists are the FAILED list and those
 * of the remembered subscriptions GET /webhooks no longer has (a deleted one's deliveries sit
 * behind a full FAILED list at incident scale), asked once per run.
 */
async function notFoundTitle(
  ctx: Context,
  id: string,
  error: ApiError,
  o: ReplayOptions,
  cache: { lists?: Promise<NotFoundLists> },
): Promise<string> {
  try {
    cache.lists ??= (async () => {
      const client = await ctx.api();
      const known = await knowSubscriptions(ctx, client);
      const list = async (subscriptionId: string | undefined) =>
        listAnswer(
          'FAILED',
          subscriptionId,
          await listDeliveries(client, { status: 'FAILED', subscriptionId, limit: DELIVERY_LIST_ROWS, signal: ctx.signal }),
        );
      const answers = [await list(o.subscriptionId)];
      for (const subscriptionId of known.deleted) answers.push(await list(subscriptionId));
      return { known, answers };
    })();
    const { known, answers } = await cache.lists;
    const fact = new DeliveryFacts(answers).get(id);
    if (fact !== undefined && fact.subscriptionId !== '' && known.isDeleted(fact.subscriptionId)) {
      return `${deletedSubscriptionText(sanitize(fact.subscriptionId))}: its deliveries cannot be replayed`;
    }
    if (fact === undefined) {
      const full = answers
        .filter((a) => a.full)
        .map((a) => (a.subscriptionId === undefined ? 'the FAILED list' : `the FAILED list of ${sanitize(a.subscriptionId)} (deleted)`));
      const behind =
        full.length === 0 ? '' : `; ${joinWords(full)} came back full, and the API lists only the newest ${DELIVERY_LIST_ROWS}`;
      return `${error.title}: no list shows this delivery; it may be a delivery of a deleted subscription, which the service keeps listing but cannot replay${behind}`;
    }
  } catch {
    // The explanation is a courtesy: the 404 itself is the result.
  }
  return error.title;
}

/** The FAILED deliveries --all-failed takes, and whether they are all there may be. */
interface FailedListing {
  /** Filtered; deliveries of deleted subscriptions still in. */
  rows: Delivery[];
  /** The ids of `rows` that came from a list that came back full. */
  fromFull: Set<string>;
  /** The lists of live subscriptions that came back full (older FAILED deliveries may sit behind them). */
  full: string[];
}

/**
 * The FAILED deliveries, filtered: the census of api/delivery-evidence.ts, so that a full list
 * of the whole workspace is listed again per live subscription (a deleted one's deliveries
 * cannot be replayed), and a busy or deleted subscription hides no other one's deliveries.
 */
async function listFailed(ctx: Context, client: ApiClient, o: ReplayOptions, orphans: Orphans): Promise<FailedListing> {
  const { slices } = await takeCensus(client, {
    statuses: ['FAILED'],
    subscriptionId: o.subscriptionId,
    known: async () => [...(await orphans.live()).byId.keys()],
    listNamed: false,
    signal: ctx.signal,
  });
  const rows = new Map<string, Delivery>();
  const fromFull = new Set<string>();
  for (const slice of slices) {
    for (const d of applyDeliveryFilter(slice.deliveries, o.filter)) {
      if (rows.has(d.id)) continue;
      rows.set(d.id, d);
      if (slice.full) fromFull.add(d.id);
    }
  }
  // A full list hides replayable deliveries only when it is a live subscription's, or holds some.
  const check = slices.some((s) => s.full) ? await orphans.live() : undefined;
  const full = slices
    .filter(
      (s) =>
        s.full &&
        (s.listedFor !== undefined ? !check?.isDeleted(s.listedFor) : s.deliveries.some((d) => !check?.isDeleted(subscriptionOf(d)))),
    )
    .map((s) => (s.listedFor === undefined ? 'the FAILED list' : `the FAILED list of ${sanitize(s.listedFor)}`));
  return { rows: onlyFailed(ctx, [...rows.values()]), fromFull, full };
}

/** The ids already said to show another status than FAILED, per run (a listing comes every round). */
const toldNotFailed = new WeakMap<Context, Set<string>>();

/**
 * Only the rows that show FAILED (cli.md, "Evidence, not inference": a status only from a row
 * that shows it). A row of the FAILED list that says another status, or none, is not FAILED: it
 * is not replayed, and that is said once. api.md names FAILED as the one known status, so
 * another is no broken contract (exit 7), only not what was asked for.
 */
function onlyFailed(ctx: Context, rows: Delivery[]): Delivery[] {
  const other = rows.filter((d) => !showsStatus(d, 'FAILED'));
  if (other.length === 0) return rows;
  const told = toldNotFailed.get(ctx) ?? new Set<string>();
  toldNotFailed.set(ctx, told);
  const fresh = other.filter((d) => !told.has(d.id));
  for (const d of fresh) told.add(d.id);
  if (fresh.length > 0) {
    const statuses = [...new Set(fresh.map((d) => (field(d, 'status') === '' ? 'none' : JSON.stringify(field(d, 'status')))))];
    ctx.ui.notice(
      `${fresh.length} row${fresh.length === 1 ? '' : 's'} of the FAILED list show${fresh.length === 1 ? 's' : ''} another status (${sanitize(statuses.join(', '))}): not FAILED, so not replayed`,
    );
  }
  return rows.filter((d) => showsStatus(d, 'FAILED'));
}

/** Replays each id once, in order; answers the ids whose replay was accepted and the exit code. */
async function replayAll(
  ctx: Context,
  o: ReplayOptions,
  first: FirstRound,
  orphans: Orphans,
): Promise<{ exitCode: number; accepted: Replayed[]; finished: boolean }> {
  const client = await ctx.api();
  // Which lists of the last listing came back full, for the rounds' end (a filtered listing is shorter).
  const fullness = new WeakMap<readonly Delivery[], readonly string[]>([[first.rows, first.full]]);
  const listAgain = async (): Promise<Delivery[]> => {
    const listed = await listFailed(ctx, client, o, orphans);
    const rows = await orphans.leaveOut(listed.rows, listed.fromFull);
    fullness.set(rows, listed.full);
    return rows;
  };
  const progress = await Progress.start(ctx.ui, o.allFailed ? 'round 1: replaying' : `replaying 0/${o.ids.length}`);
  const rounds = o.allFailed
    ? new FailedRounds(
        first.rows,
        listAgain,
        o.max,
        ctx.signal,
        (round) => progress.update(`round ${round}: replaying`),
        (listing) => fullness.get(listing) ?? (isFullDeliveryList(listing.length) ? ['the FAILED list'] : []),
        isFiltering(o.filter) ? `matching ${describeDeliveryFilter(o.filter)}` : undefined,
      )
    : undefined;
  // Each id once (run() dropped the repeats), by position.
  const given = o.ids.map((id, n) => ({ id, n: n + 1, round: 1 }));
  const items = rounds ? rounds.items() : given;

  const accepted = new Map<string, Replayed>();
  const notFound: { lists?: Promise<NotFoundLists> } = {};
  const writer = new ResultWriter(ctx, (r) => ({ label: [String(r.id)], done: `replayed (now ${String(r.status ?? 'queued')})` }), [
    DELIVERY_LABEL,
  ]);
  const report = await runBatch({
    items,
    writer,
    signal: ctx.signal,
    progress,
    work: async ({ id, n, round }, run): Promise<ItemResult> => {
      progress.update(rounds ? `round ${round}: replaying ${n}` : `replaying ${n}/${o.ids.length}`);
      run.doing(`replaying ${sanitize(id)}`);
      try {
        const sentAt = ctx.clock.now();
        const { delivery } = await replayDelivery(client, id, ctx.signal);
        const answer = delivery !== null && typeof delivery === 'object' ? (delivery as Delivery) : undefined;
        const status = answer === undefined ? null : field(answer, 'status') || null;
        if (!accepted.has(id)) accepted.set(id, replayedFrom(id, answer, rounds?.row(id), sentAt));
        return { id, ok: true, status };
      } catch (error) {
        const result = itemError(error);
        if (error instanceof ApiError && error.status === 404) result.title = await notFoundTitle(ctx, id, error, o, notFound);
        return { id, ok: false, error: result };
      }
    },
  });

  const { end } = report;
  const inFlight = end.how === 'interrupted' ? end.inFlight : [];
  const notDone = rounds
    ? [...rounds.notReplayed()]
    : given.filter((item) => !report.done.includes(item) && !inFlight.some((f) => f.item === item)).map((item) => item.id);
  const parts = [`${report.ok} replayed, ${report.failed} failed`];
  const told = rounds?.describe();
  if (told !== undefined) parts.push(told);
  const orphaned = orphans.describe();
  if (orphaned !== undefined) parts.push(orphaned);
  if (end.how === 'stopped') parts.push('stopped: the key was refused');
  if (end.how === 'interrupted') {
    parts.push(
      inFlight.length === 0 ? 'interrupted' : `interrupted while ${inFlight.map((f) => `${f.doing} (it may have been queued)`).join(', ')}`,
    );
  }
  const closed = writer.closedNote();
  if (closed) parts.push(closed);
  if (notDone.length > 0) parts.push(`not replayed: ${notDone.map((id) => sanitize(id)).join(', ')}`);
  writeSummary(ctx.ui, parts.join('; '));
  // A list that failed between rounds is reported as the error it is, after the summary.
  if (rounds?.end.how === 'list-failed' && end.how === 'finished') throw rounds.end.error;
  return { exitCode: report.exitCode, accepted: [...accepted.values()], finished: end.how === 'finished' };
}

/**
 * What --wait needs of a replayed delivery: its subscription and its last attempt before the
 * replay, from the replay's answer (the server's clock), else the row it was listed from, else
 * the time the replay was sent (this machine's clock, less the skew allowed: the best there is).
 */
function replayedFrom(id: string, answer: Delivery | undefined, listed: Delivery | undefined, sentAt: number): Replayed {
  const subscriptionId = (answer && subscriptionOf(answer)) || (listed && subscriptionOf(listed)) || '';
  const shown = [answer, listed].find((d) => d !== undefined && 'lastAttemptAt' in d);
  // This machine's clock against the server's attempt times: allow the skew (delivery-evidence.ts).
  if (shown === undefined) return { id, subscriptionId, before: sentAt - CLOCK_SKEW_MS };
  return { id, subscriptionId, before: attemptTimeOf(shown) ?? Number.NEGATIVE_INFINITY };
}

/** The first round's FAILED deliveries, and the lists of live subscriptions that came back full. */
interface FirstRound {
  rows: Delivery[];
  full: readonly string[];
}

/**
 * The FAILED deliveries of the first round as listed, once confirmed; undefined when nothing is
 * to be replayed. With --max the confirmation shows only those that will be replayed.
 */
async function firstRound(ctx: Context, o: ReplayOptions, orphans: Orphans): Promise<FirstRound | undefined> {
  const client = await ctx.api();
  const all = await listFailed(ctx, client, o, orphans);
  const listed = await orphans.leaveOut(all.rows, all.fromFull);
  const orphaned = orphans.describe();
  const shown = o.max === undefined ? listed : listed.slice(0, o.max);
  const maybeMore = all.full.length > 0 && (o.max === undefined || o.max > DELIVERY_LIST_ROWS);
  const incomplete = incompleteNotice(o.filter, all.full);
  // Every row is FAILED: STATUS says nothing, SUBSCRIPTION and LAST ANSWER say why.
  const table = { columns: deliveryColumns(ctx.clock.now(), shown, { byAttempt: selectsByAttempt(o.filter) }), fixed: ['STATUS'] };
  if (o.dryRun) {
    await writeList(ctx.io, ctx.globals.output, shown, { ...table, color: ctx.globals.color });
    ctx.ui.notice(`${deliveries(shown.length)} would be replayed (dry run: nothing sent)`);
    if (orphaned !== undefined) ctx.ui.notice(orphaned);
    if (incomplete !== undefined) ctx.ui.notice(incomplete);
    else if (maybeMore) ctx.ui.notice(`the list holds at most ${DELIVERY_LIST_ROWS} rows: a replay goes on listing until none is left`);
    return undefined;
  }
  if (shown.length === 0) {
    const none = isFiltering(o.filter) ? 'no FAILED deliveries match: nothing to replay' : 'no FAILED deliveries: nothing to replay';
    ctx.ui.notice(orphaned === undefined ? none : `nothing to replay: ${orphaned}`);
    if (incomplete !== undefined) ctx.ui.notice(incomplete);
    return undefined;
  }
  if (!ctx.globals.yes) {
    // What will be replayed, as --dry-run shows it: whole ids in columns, never a wrapped list.
    ctx.io.stderr.write(renderTable(table.columns, shown, { color: ctx.ui.stderrColor, width: ctx.io.columns, fixed: table.fixed }));
    if (orphaned !== undefined) ctx.ui.say(orphaned);
    const more = maybeMore ? ', and any more the list shows once these are replayed' : '';
    if (!(await confirmAction(ctx, `Replay ${shown.length === 1 ? 'this' : 'these'} ${deliveries(shown.length)}${more}?`))) {
      ctx.ui.say('Nothing replayed.');
      return undefined;
    }
  }
  return { rows: listed, full: all.full };
}

async function waitAndReport(ctx: Context, o: ReplayOptions, replayed: Replayed[]): Promise<number> {
  const budget = new RequestBudget(o.budget, ctx.clock);
  const unlisten = budget.listen();
  const client = gatedByBudget(await ctx.api(), budget);
  const n = replayed.length;
  const progress = await Progress.start(ctx.ui, `waiting for ${n} replayed deliver${n === 1 ? 'y' : 'ies'}`);
  let result: Awaited<ReturnType<typeof waitForOutcomes>>;
  try {
    result = await waitForOutcomes(replayed, o.waitTimeoutSeconds * 1000, {
      list: (status, subscriptionId, signal) => listDeliveries(client, { status, subscriptionId, limit: DELIVERY_LIST_ROWS, signal }),
      clock: ctx.clock,
      signal: ctx.signal,
      spacing: (requests) => budget.spacing(requests, 0),
      onPoll: (left) =>
        progress.update(
          `waiting for the outcome of ${left} replayed deliver${left === 1 ? 'y' : 'ies'} (budget ${o.budget} requests a minute)`,
        ),
    });
  } finally {
    progress.stop();
    unlisten();
  }
  const unknown = result.outcomes.some((x) => !x.known);
  const writer = new ResultWriter(
    ctx,
    (r) => ({
      label: [String(r.id)],
      done: String(r.finalStatus),
      ...(r.known === false ? { other: { result: NOT_KNOWN, detail: String(r.why) } } : {}),
    }),
    [DELIVERY_LABEL],
    unknown ? NOT_KNOWN.length : undefined,
  );
  for (const outcome of result.outcomes) await writer.write(outcomeLine(outcome));
  const count = (status: string): number => result.outcomes.filter((x) => x.known && x.status === status).length;
  const parts = [`${count('SUCCEEDED')} SUCCEEDED, ${count('FAILED')} FAILED again`];
  const notKnown = result.outcomes.filter((x) => !x.known).map((x) => sanitize(x.id));
  if (notKnown.length > 0)
    parts.push(`${notKnown.length} not known after ${o.waitTimeoutSeconds} s (--wait-timeout): ${notKnown.join(', ')}`);
  writeSummary(ctx.ui, `waited ${Math.round(result.waitedMs / 1000)} s: ${parts.join('; ')}`);
  return count('SUCCEEDED') === n ? EXIT.OK : EXIT.BATCH_FAILED;
}

/** The RESULT of a replayed delivery no list has shown the outcome of: a result of its own, never FAILED. */
const NOT_KNOWN = 'not known';

/** One line per replayed delivery after --wait: ok only when it SUCCEEDED; `finalStatus` null when not known. */
function outcomeLine(outcome: Outcome): ItemResult {
  const { id } = outcome;
  if (!outcome.known) return { id, ok: false, finalStatus: null, known: false, why: outcome.why };
  if (outcome.status === 'SUCCEEDED') return { id, ok: true, finalStatus: outcome.status };
  // The code says the status (the table shows `FAILED: HTTP 503`); the title says why.
  const row = outcome.fact.row;
  const why =
    field(row, 'lastError') ||
    (field(row, 'lastResponseStatus') && `HTTP ${field(row, 'lastResponseStatus')}`) ||
    'failed again, no answer recorded';
  return { id, ok: false, finalStatus: 'FAILED', error: { status: null, code: 'FAILED', title: why, requestId: null } };
}

export async function run(ctx: Context, given: ReplayOptions): Promise<number> {
  // Asking comes after the listing, but whether we could ask is known now: fail before sending.
  if (given.allFailed && !given.dryRun && !ctx.globals.yes && !canPrompt(ctx.io)) {
    throw new UsageError('replaying every FAILED delivery needs a confirmation, and there is no terminal to ask on', {
      hint: 'pass --yes to confirm, or --dry-run to only list them',
    });
  }
  // An id given twice is one delivery: replayed once, and the repeats said.
  const o = { ...given, ids: [...new Set(given.ids)] };
  const dropped = given.ids.length - o.ids.length;
  if (dropped > 0) {
    const repeated = [...new Set(given.ids.filter((id, n) => given.ids.indexOf(id) !== n))];
    ctx.ui.notice(
      `each delivery is replayed once: dropped ${dropped} repeat${dropped === 1 ? '' : 's'} of ${repeated.map((id) => sanitize(id)).join(', ')}`,
    );
  }
  let first: FirstRound = { rows: [], full: [] };
  const orphans = new Orphans(async () => checkSubscriptions(await ctx.api(), ctx.signal));
  if (o.allFailed) {
    const listed = await firstRound(ctx, o, orphans);
    if (listed === undefined) return EXIT.OK;
    first = listed;
  }
  const replayed = await replayAll(ctx, o, first, orphans);
  if (!o.wait || !replayed.finished) return replayed.exitCode;
  if (replayed.accepted.length === 0) return replayed.exitCode;
  const waited = await waitAndReport(ctx, o, replayed.accepted);
  return replayed.exitCode === EXIT.OK ? waited : replayed.exitCode;
}
