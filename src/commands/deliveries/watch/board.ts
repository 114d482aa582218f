// What the full-screen view of `deliveries watch` shows (cli.md, deliveries), as data:
// one row per subscription with its counts (lower bounds where a list came back full), its most
// common last error and its failures per minute since the watch began, and the latest failures.
// Pure: fed one census per poll and the poll's changes, with the time of the poll, so that a
// screen is a function of what the polls saw.
import type { SubscriptionCheck } from '../../../api/subscriptions.js';
import { attemptTimeOf } from '../../../api/delivery-evidence.js';
import { field } from '../../../output/fields.js';
import { lastErrorOf, type Slice } from '../census.js';
import { keptError, type StatusChange, type SubscriptionEvent } from './changes.js';

/** The statuses a row counts, in the order it shows them. */
export const BOARD_STATUSES = ['FAILED', 'PENDING', 'SUCCEEDED'] as const;
type BoardStatus = (typeof BOARD_STATUSES)[number];

/** How many minutes a sparkline covers at most. */
export const SPARK_MINUTES = 30;
const MINUTE_MS = 60_000;
/** How many latest failures the board keeps. */
const LATEST = 50;

export interface Count {
  n: number;
  /** A list came back full: there may be more. */
  lowerBound: boolean;
}

export interface BoardRow {
  subscriptionId: string;
  /** The subscription's URL, or null when it no longer exists. */
  url: string | null;
  counts: Record<BoardStatus, Count>;
  /** The most common last error of its FAILED deliveries (the server's words), or null. */
  topError: string | null;
  /** The FAILED deliveries' ids, for a replay. */
  failedIds: string[];
  /** Failures seen per minute, oldest first, the last the current minute; null: before the watch began. */
  perMinute: (number | null)[];
  /** It started failing or recovered while watched, and when (ISO 8601): the row's mark. */
  mark?: { state: SubscriptionEvent['state']; time: string } | undefined;
}

export interface LatestFailure {
  id: string;
  subscriptionId: string;
  error: string | null;
  /** Its last attempt (ISO 8601, as the server wrote it), or null when the row shows none. */
  attemptAt: string | null;
}

export interface BoardState {
  rows: BoardRow[];
  /** The FAILED deliveries the lists show, newest attempt first (never the lists' order). */
  latest: LatestFailure[];
  /** When the poll that made it was taken (ms); the failures' ages count from the time of each drawing (render.ts). */
  at: number;
}

export class Board {
  /** Per subscription: minute index since the start → failures seen in it. */
  private readonly failures = new Map<string, Map<number, number>>();
  /** Per subscription: the last time it started failing or recovered while watched. */
  private readonly marks = new Map<string, { state: SubscriptionEvent['state']; time: string }>();
  private state: BoardState = { rows: [], latest: [], at: 0 };

  constructor(private readonly started: number) {}

  get current(): BoardState {
    return this.state;
  }

  /** One poll: the census it took, the changes it saw, the subscriptions that exist; `only`: one subscription's row. */
  update(
    slices: readonly Slice[],
    changes: readonly StatusChange[],
    live: SubscriptionCheck,
    now: number,
    only?: string,
    events: readonly SubscriptionEvent[] = [],
  ): BoardState {
    const minute = Math.floor((now - this.started) / MINUTE_MS);
    for (const event of events) this.marks.set(event.subscriptionId, { state: event.state, time: event.time });
    for (const change of changes) {
      if (change.to !== 'FAILED') continue;
      const perSub = this.failures.get(change.subscriptionId) ?? new Map<number, number>();
      perSub.set(minute, (perSub.get(minute) ?? 0) + 1);
      this.failures.set(change.subscriptionId, perSub);
    }

    const ids = new Set<string>(only === undefined ? live.byId.keys() : [only]);
    const rows = new Map<string, BoardRow>();
    const rowOf = (id: string): BoardRow => {
      let row = rows.get(id);
      if (row === undefined) {
        row = {
          subscriptionId: id,
          url: live.byId.get(id)?.url ?? null,
          counts: emptyCounts(),
          topError: null,
          failedIds: [],
          perMinute: [],
        };
        rows.set(id, row);
      }
      return row;
    };
    for (const id of ids) rowOf(id);
    const errors = new Map<string, Map<string, number>>();
    const failedNow = new Map<string, LatestFailure & { ms: number }>();
    for (const slice of slices) {
      const status = slice.status as BoardStatus;
      if (!BOARD_STATUSES.includes(status)) continue;
      const touched = new Set<string>();
      for (const d of slice.deliveries) {
        const id = field(d, 'subscriptionId');
        const row = rowOf(id);
        row.counts[status].n += 1;
        touched.add(id);
        if (status !== 'FAILED') continue;
        const error = lastErrorOf(d);
        row.failedIds.push(d.id);
        const attemptAt = field(d, 'lastAttemptAt') || null;
        const ms = attemptTimeOf(d) ?? Number.NEGATIVE_INFINITY;
        if (error === null) {
          failedNow.set(d.id, { id: d.id, subscriptionId: id, error, attemptAt, ms });
          continue;
        }
        // Kept beyond this poll: cut, and a string of its own (changes.ts).
        const kept = keptError(error);
        failedNow.set(d.id, { id: d.id, subscriptionId: id, error: kept, attemptAt: attemptAt && keptError(attemptAt), ms });
        const tally = errors.get(id) ?? new Map<string, number>();
        tally.set(kept, (tally.get(kept) ?? 0) + 1);
        errors.set(id, tally);
      }
      if (slice.full) for (const id of touched) rowOf(id).counts[status].lowerBound = true;
    }
    for (const row of rows.values()) {
      // A deleted subscription leaves the view once nothing of it is failing or pending.
      if (row.url === null && row.counts.FAILED.n === 0 && row.counts.PENDING.n === 0) rows.delete(row.subscriptionId);
    }
    for (const row of rows.values()) {
      row.topError = mostCommon(errors.get(row.subscriptionId));
      row.perMinute = sparkData(this.failures.get(row.subscriptionId), minute);
      row.mark = this.marks.get(row.subscriptionId);
    }
    // Only what a row can still show is kept: the last SPARK_MINUTES of the subscriptions shown.
    for (const [id, perSub] of this.failures) {
      if (!rows.has(id)) this.failures.delete(id);
      else for (const m of perSub.keys()) if (m <= minute - SPARK_MINUTES) perSub.delete(m);
    }
    for (const id of this.marks.keys()) if (!rows.has(id)) this.marks.delete(id);
    // The failures the lists show now, by attempt time (cli.md, "Evidence, not inference": a
    // full list's order is the server's), newest first; a replayed one leaves with its row.
    const latest = [...failedNow.values()]
      .sort((a, b) => b.ms - a.ms || byCodePoint(a.id, b.id))
      .slice(0, LATEST)
      .map(({ ms: _ms, ...f }) => f);
    // By URL (then id), the same order at every poll; deleted subscriptions last.
    const order = (r: BoardRow): string => (r.url === null ? `\u{10ffff}${r.subscriptionId}` : `${r.url}\u0000${r.subscriptionId}`);
    const sorted = [...rows.values()].sort((a, b) => byCodePoint(order(a), order(b)));
    this.state = { rows: sorted, latest, at: now };
    return this.state;
  }
}

function emptyCounts(): Record<BoardStatus, Count> {
  return {
    FAILED: { n: 0, lowerBound: false },
    PENDING: { n: 0, lowerBound: false },
    SUCCEEDED: { n: 0, lowerBound: false },
  };
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mostCommon(tally: Map<string, number> | undefined): string | null {
  let best: string | null = null;
  let most = 0;
  for (const [error, n] of [...(tally ?? [])].sort(([a], [b]) => byCodePoint(a, b))) {
    if (n > most) [best, most] = [error, n];
  }
  return best;
}

function sparkData(perMinute: Map<number, number> | undefined, current: number): (number | null)[] {
  const out: (number | null)[] = [];
  for (let m = current - SPARK_MINUTES + 1; m <= current; m++) out.push(m < 0 ? null : (perMinute?.get(m) ?? 0));
  return out;
}
