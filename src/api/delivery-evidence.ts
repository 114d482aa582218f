// What the deliveries lists prove (cli.md, deliveries, "Evidence, not inference"), in one place
// for `replay --wait`, `replay`, `watch`, `summary` and `doctor`.
//
// A list (GET /webhooks/deliveries, by status and subscription, at most 50 rows, no cursor)
// shows each of its rows' status with its last attempt time. That row is the evidence: rfs
// states a delivery's status only from a row that shows it, and when two rows of one delivery
// disagree, the later attempt wins. Absence proves something only from a list that did not come
// back full (the delivery is not of that status, at the time of the list); from a full list it
// proves nothing, and the order of a full list is the server's (api.md does not say by which
// time), so nothing is concluded from a row's place either.
import { ApiError } from '../core/errors.js';
import { joinWords } from '../core/words.js';
import { DELIVERY_LIST_ROWS, isFullDeliveryList } from '../shared/api-limits.js';
import { INSTANT, parseIsoTime } from '../shared/iso-time.js';
import type { Delivery } from '../shared/schemas.js';
import type { ApiClient } from './types.js';
import { listDeliveries } from './webhooks.js';

export { DELIVERY_LIST_ROWS, isFullDeliveryList } from '../shared/api-limits.js';

/** One list as the API answered it. */
export interface ListAnswer {
  /** The status asked for; undefined for a list of every status. */
  status: string | undefined;
  /** The subscription asked for; undefined for the whole workspace. */
  subscriptionId: string | undefined;
  rows: readonly Delivery[];
  /** It came back full: more of its kind may exist than it shows. */
  full: boolean;
}

/** A list's answer, with whether it came back full. */
export function listAnswer(status: string | undefined, subscriptionId: string | undefined, rows: readonly Delivery[]): ListAnswer {
  return { status, subscriptionId, rows, full: isFullDeliveryList(rows.length) };
}

/** What one row proves: a delivery's status at its last attempt. */
export interface DeliveryFact {
  id: string;
  status: string;
  subscriptionId: string;
  /** The last attempt (ms since the epoch), or null when the row shows none. */
  attemptAt: number | null;
  /** The row itself: its error, its recording. */
  row: Delivery;
}

const text = (d: Delivery, name: string): string => {
  const v = (d as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
};

/** A row's last attempt in ms, or null when it shows none (or an unreadable one). */
export function attemptTimeOf(d: Delivery): number | null {
  const at = text(d, 'lastAttemptAt');
  return at === '' ? null : parseIsoTime(at, INSTANT);
}

/** The fact a row of `answer` shows, or undefined when it shows no status. */
export function factOf(d: Delivery, answer?: Pick<ListAnswer, 'status'>): DeliveryFact | undefined {
  const status = text(d, 'status') || answer?.status || '';
  if (status === '' || typeof d.id !== 'string' || d.id === '') return undefined;
  return { id: d.id, status, subscriptionId: text(d, 'subscriptionId'), attemptAt: attemptTimeOf(d), row: d };
}

/**
 * How far ahead of this machine's clock a server's time may be and still be taken as a time
 * (doctor warns above 30 s of offset, cli.md): a row's attempt further ahead is a time in the
 * future, not evidence of when anything happened; and a replay timed by this machine's clock
 * allows as much the other way.
 */
export const CLOCK_SKEW_MS = 30_000;

/** Whether an attempt time lies further ahead of `now` than the skew allows. */
export const isFutureTime = (at: number, now: number): boolean => at > now + CLOCK_SKEW_MS;

/** Whether a row shows `status` itself: a row of the FAILED list that says another status (or none) is not FAILED. */
export function showsStatus(d: Delivery, status: string): boolean {
  return text(d, 'status') === status;
}

/** Whether `a` is later evidence than `b`: a later attempt; an attempt over none. */
export function isNewer(a: DeliveryFact, b: DeliveryFact | undefined): boolean {
  if (b === undefined) return true;
  if (a.attemptAt === null) return false;
  return b.attemptAt === null || a.attemptAt > b.attemptAt;
}

/**
 * Every delivery the answers show, each with its latest evidence. Two rows of one delivery with
 * the same attempt time (or none) that show different statuses leave its status not known
 * (`conflicted`), whichever list came first: the later attempt wins, and there is none.
 */
export class DeliveryFacts {
  private readonly byId = new Map<string, DeliveryFact>();
  private readonly conflicts = new Set<string>();

  constructor(answers: Iterable<ListAnswer> = []) {
    for (const answer of answers) this.add(answer);
  }

  add(answer: ListAnswer): void {
    for (const d of answer.rows) {
      const fact = factOf(d, answer);
      if (fact === undefined) continue;
      const known = this.byId.get(fact.id);
      if (isNewer(fact, known)) {
        this.byId.set(fact.id, fact);
        this.conflicts.delete(fact.id);
      } else if (known !== undefined && known.attemptAt === fact.attemptAt && known.status !== fact.status) {
        this.conflicts.add(fact.id);
      }
    }
  }

  /** Rows of equal attempt times showed it with different statuses: its status is not known. */
  conflicted(id: string): boolean {
    return this.conflicts.has(id);
  }

  get(id: string): DeliveryFact | undefined {
    return this.byId.get(id);
  }

  all(): DeliveryFact[] {
    return [...this.byId.values()];
  }

  /** The facts of `status`, newest attempt first (none last), ids breaking ties: never the list's order. */
  newestFirst(status: string): DeliveryFact[] {
    return this.all()
      .filter((f) => f.status === status)
      .sort(byAttemptNewestFirst);
  }
}

/** Newest attempt first; a fact without an attempt last; then by id, the same on every machine. */
export function byAttemptNewestFirst(a: DeliveryFact, b: DeliveryFact): number {
  const x = a.attemptAt ?? Number.NEGATIVE_INFINITY;
  const y = b.attemptAt ?? Number.NEGATIVE_INFINITY;
  if (x !== y) return y - x;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Whether `answers` prove that `id` (of `subscriptionId`, '' when unknown) is not of `status`
 * now: a list of that status that reaches it (the whole workspace's, or its subscription's) came
 * back not full and without it. A full list proves nothing.
 */
export function provesAbsent(answers: readonly ListAnswer[], id: string, status: string, subscriptionId: string): boolean {
  return answers.some(
    (a) =>
      a.status === status &&
      !a.full &&
      (a.subscriptionId === undefined || (subscriptionId !== '' && a.subscriptionId === subscriptionId)) &&
      !a.rows.some((d) => d.id === id),
  );
}

/** What is known of a replayed delivery's outcome. */
export type ReplayOutcome = { known: true; status: 'SUCCEEDED' | 'FAILED'; fact: DeliveryFact } | { known: false; why: string };

/**
 * The outcome of a replay sent when the delivery's last attempt was `before` (ms; the replay's
 * own answer or the row it was listed from, else the time the replay was sent, less
 * CLOCK_SKEW_MS): SUCCEEDED or FAILED only when a row shows it so with an attempt after the
 * replay (a row of the FAILED list with the old attempt is the failure that was replayed, an old
 * SUCCEEDED row an earlier success); otherwise not known, with why.
 */
export function replayOutcome(
  facts: DeliveryFacts,
  answers: readonly ListAnswer[],
  id: string,
  before: number,
  subscriptionId: string,
): ReplayOutcome {
  if (facts.conflicted(id)) return { known: false, why: 'the lists show it with different statuses at the same attempt time' };
  const fact = facts.get(id);
  // Like FAILED, SUCCEEDED only from an attempt after the replay: an older success is not its outcome.
  const sinceReplay = fact !== undefined && fact.attemptAt !== null && fact.attemptAt > before;
  if (fact?.status === 'SUCCEEDED' && sinceReplay) return { known: true, status: 'SUCCEEDED', fact };
  if (fact?.status === 'FAILED' && sinceReplay) return { known: true, status: 'FAILED', fact };
  if (fact?.status === 'PENDING') return { known: false, why: 'still PENDING when last listed' };
  const sub = fact?.subscriptionId || subscriptionId;
  const hidden = ['SUCCEEDED', 'FAILED'].filter((s) => !provesAbsent(answers, id, s, sub));
  if (hidden.length === 0) return { known: false, why: 'still PENDING: neither the SUCCEEDED nor the FAILED list shows it' };
  if (fact?.status === 'FAILED' || fact?.status === 'SUCCEEDED') {
    return { known: false, why: `no attempt since the replay shown yet (the lists show its ${fact.status} attempt from before it)` };
  }
  const lists = hidden.map((s) => `the ${s} list`);
  return {
    known: false,
    why: `no list has shown it since the replay (${joinWords(lists)} came back full: the API lists only the newest ${DELIVERY_LIST_ROWS})`,
  };
}

/**
 * The notice that full lists may hide subscriptions rfs has not seen (a census's
 * `workspaceFull`), naming the way to reach one: the command's own
 * `--subscription <id>`, or for a command without that flag (doctor) the command that has it.
 */
export function hiddenSubscriptionsNotice(statuses: readonly string[], command?: string): string {
  const lists = joinWords([...new Set(statuses)].map((s) => `the ${s} list`));
  return (
    `${lists} came back full (${DELIVERY_LIST_ROWS} rows, the most the API lists), so deliveries of subscriptions rfs has ` +
    `not seen (one deleted before rfs ever listed it) may be hidden: name one with ${command === undefined ? '' : `${command} `}--subscription <id>`
  );
}

/** One list of a census: one status, of the whole workspace or of one subscription. */
export interface Slice {
  status: string;
  /** The subscription this list was asked for; undefined for the whole workspace's list (or its rest). */
  listedFor?: string | undefined;
  deliveries: Delivery[];
  /** The list came back full: more deliveries of this kind may exist than it shows. */
  full: boolean;
}

export interface CensusOptions {
  statuses: readonly string[];
  /** Only this subscription (one list per status). */
  subscriptionId?: string | undefined;
  /**
   * Subscriptions to list one by one when a status's list of the whole workspace comes back
   * full; a function is asked only then (what it costs, a GET /webhooks, is spent only then).
   */
  known: Iterable<string> | (() => Promise<Iterable<string>>);
  /**
   * Whether the subscriptions the full list's rows name are listed one by one too (default true).
   * A command that acts on live subscriptions only (replay) names them all in `known` and passes
   * false: a deleted one's list would cost a request for rows it cannot use.
   */
  listNamed?: boolean;
  signal?: AbortSignal | undefined;
}

export interface Census {
  slices: Slice[];
  /**
   * The statuses whose list of the whole workspace came back full: a subscription rfs has not
   * seen (deleted before it ever listed it) may have deliveries of that status behind it, which
   * no list of a known subscription reaches, so it shows nowhere. (Lists of one subscription
   * cannot hide another: a census of one subscription has none.)
   */
  workspaceFull: string[];
  /**
   * Known subscription ids whose lists the service refused (a 400 or 404: an id it does not
   * take, a file edited by hand): skipped, for the caller to forget and say so.
   */
  refused: { id: string; why: string }[];
}

/** A refusal of the id itself, as opposed to the key, the rate or the server failing. */
const refusesId = (error: unknown): error is ApiError => error instanceof ApiError && (error.status === 400 || error.status === 404);

/**
 * The deliveries of `statuses` as far as the API's lists reach (docs/incidents.md, "At incident
 * scale"): one list per status, and when the whole workspace's comes back full, one per known
 * subscription (and per subscription its rows name), so one busy subscription does not hide the
 * others; rows of the full list no subscription's list showed are kept as its rest, a lower
 * bound. The home of that rule for `summary`, `watch`, `replay --all-failed` and `doctor`.
 * Every request goes through `client`, so within its pacing (--rate) or watch's budget.
 */
export async function takeCensus(client: ApiClient, o: CensusOptions): Promise<Census> {
  const slices: Slice[] = [];
  const workspaceFull: string[] = [];
  const refused = new Map<string, string>();
  let known: Iterable<string> | undefined;
  const list = async (status: string, subscriptionId: string | undefined): Promise<Slice> => {
    const deliveries = await listDeliveries(client, { status, subscriptionId, limit: DELIVERY_LIST_ROWS, signal: o.signal });
    return { status, listedFor: subscriptionId, deliveries, full: isFullDeliveryList(deliveries.length) };
  };
  for (const status of o.statuses) {
    const all = await list(status, o.subscriptionId);
    if (!all.full || o.subscriptionId !== undefined) {
      slices.push(all);
      continue;
    }
    workspaceFull.push(status);
    known ??= typeof o.known === 'function' ? await o.known() : o.known;
    const ids = new Set(known);
    // Ids the rows name are the server's own: a refusal of one of those is no memory's fault.
    const listedIds = new Set<string>();
    for (const d of all.deliveries) {
      const id = text(d, 'subscriptionId');
      if (id !== '') listedIds.add(id);
    }
    if (o.listNamed !== false) for (const id of listedIds) ids.add(id);
    const seen = new Set<string>();
    for (const id of [...ids].sort()) {
      if (refused.has(id)) continue;
      let slice: Slice;
      try {
        slice = await list(status, id);
      } catch (error) {
        if (!refusesId(error) || listedIds.has(id)) throw error;
        refused.set(id, `HTTP ${error.status} ${error.code}`);
        continue;
      }
      for (const d of slice.deliveries) seen.add(d.id);
      slices.push(slice);
    }
    // Rows of the full list that no subscription's list showed: kept, as a lower bound.
    const rest = all.deliveries.filter((d) => !seen.has(d.id));
    if (rest.length > 0) slices.push({ status, listedFor: undefined, deliveries: rest, full: true });
  }
  return { slices, workspaceFull, refused: [...refused].map(([id, why]) => ({ id, why })) };
}
