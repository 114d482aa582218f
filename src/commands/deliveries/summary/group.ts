// `deliveries summary`'s groups: deliveries of one subscription, one status and one last error,
// with every bound flagged (cli.md, deliveries, "At incident scale"; bounds.ts).
import { DeliveryFacts } from '../../../api/delivery-evidence.js';
import { INSTANT, parseIsoTime } from '../../../shared/iso-time.js';
import { field } from '../../../output/fields.js';
import { lastErrorOf, type Slice } from '../census.js';
import type { KnownSubscriptions } from '../known-subscriptions.js';

export interface SummaryGroup {
  subscriptionId: string;
  /** The subscription's URL (remembered, for a deleted one); null when unknown. */
  url: string | null;
  /** False when the subscription was deleted: these deliveries can never be replayed. */
  exists: boolean;
  status: string;
  /** The last attempt's error as the server gave it (`HTTP 500`, a connection error), or null before any. */
  lastError: string | null;
  count: number;
  /** The count is a lower bound: some of its rows came from a list that came back full (50 rows). */
  countIsLowerBound: boolean;
  oldestAttemptAt: string | null;
  /** The oldest attempt is a bound: older ones may sit behind a full list. */
  oldestIsLowerBound: boolean;
  newestAttemptAt: string | null;
  /** False when the group may lack deliveries: some of its rows came from a list that came back full. */
  complete: boolean;
}

/** Ids in code-point order, the same on every machine and locale. */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const STATUS_ORDER = ['FAILED', 'PENDING'];

/**
 * Groups the rows of the slices (each delivery once, by the row of its later attempt, whichever
 * list showed it: api/delivery-evidence.ts), most numerous first within FAILED, then PENDING.
 */
export function groupDeliveries(slices: readonly Slice[], known: Pick<KnownSubscriptions, 'isDeleted' | 'urlOf'>): SummaryGroup[] {
  const groups = new Map<string, SummaryGroup & { oldestMs: number; newestMs: number }>();
  const counted = new Set<string>();
  const facts = new DeliveryFacts(slices.map((s) => ({ status: s.status, subscriptionId: s.listedFor, rows: s.deliveries, full: s.full })));
  for (const slice of slices) {
    for (const d of slice.deliveries) {
      if (counted.has(d.id)) continue;
      const fact = facts.get(d.id);
      if (fact !== undefined && fact.row !== d) continue;
      counted.add(d.id);
      const subscriptionId = field(d, 'subscriptionId');
      const lastError = lastErrorOf(d);
      const status = field(d, 'status') || slice.status;
      const key = JSON.stringify([subscriptionId, status, lastError]);
      let g = groups.get(key);
      if (!g) {
        g = {
          subscriptionId,
          url: known.urlOf(subscriptionId),
          exists: !known.isDeleted(subscriptionId),
          status,
          lastError,
          count: 0,
          countIsLowerBound: false,
          oldestAttemptAt: null,
          oldestIsLowerBound: false,
          newestAttemptAt: null,
          complete: true,
          oldestMs: Number.POSITIVE_INFINITY,
          newestMs: Number.NEGATIVE_INFINITY,
        };
        groups.set(key, g);
      }
      g.count++;
      if (slice.full) {
        g.countIsLowerBound = true;
        g.oldestIsLowerBound = true;
        g.complete = false;
      }
      const at = field(d, 'lastAttemptAt');
      const ms = at === '' ? null : parseIsoTime(at, INSTANT);
      if (ms !== null) {
        if (ms < g.oldestMs) [g.oldestMs, g.oldestAttemptAt] = [ms, at];
        if (ms > g.newestMs) [g.newestMs, g.newestAttemptAt] = [ms, at];
      }
    }
  }
  const rank = (s: string): number => (STATUS_ORDER.includes(s) ? STATUS_ORDER.indexOf(s) : STATUS_ORDER.length);
  return [...groups.values()]
    .sort(
      (a, b) =>
        rank(a.status) - rank(b.status) ||
        b.count - a.count ||
        byCodePoint(a.subscriptionId, b.subscriptionId) ||
        byCodePoint(a.lastError ?? '', b.lastError ?? ''),
    )
    .map(({ oldestMs: _o, newestMs: _n, ...g }) => g);
}
