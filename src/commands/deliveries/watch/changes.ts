// What `deliveries watch` reports (cli.md, deliveries): a delivery's status as
// each poll sees it, compared with the poll before, and a subscription's health as its attempts
// tell it (failing after successes, recovered after failures). A delivery first seen after the
// first poll is a change from null only when it is newer than what was seen before; one that
// drops out of every list (past the 50 newest) is no change at all. One delivery shown by several
// lists of one poll (its subscription's and the workspace's, or lists of different statuses
// taken moments apart) is one delivery: the row with the later attempt stands for it
// (api/delivery-evidence.ts), and rows of one attempt time that disagree leave its status not
// known for that poll, never a change. A row whose attempt lies in the future (past the clock
// skew allowed) is no evidence of when: it moves neither the newest time seen nor a
// subscription's health.
//
// Memory stays bounded for any run time and any server: the statuses of the
// newest 1,000 deliveries seen are kept (or of the last poll's, when it saw more), the health
// of at most 1,000 subscriptions, and error texts are cut to 200 characters, copied out of the
// answer they came in so that a kept text never holds a 20 KB one alive.
import { attemptTimeOf, DeliveryFacts, isFutureTime } from '../../../api/delivery-evidence.js';
import { INSTANT, parseIsoTime } from '../../../shared/iso-time.js';
import type { Delivery } from '../../../shared/schemas.js';
import { field } from '../../../output/fields.js';
import { lastErrorOf } from '../census.js';

/** How many deliveries' statuses (and subscriptions' health) are remembered at least / at most. */
export const REMEMBERED = 1000;
/** The most characters of an error text watch keeps or prints. */
export const ERROR_CHARS = 200;

export interface StatusChange {
  type: 'delivery';
  time: string;
  id: string;
  subscriptionId: string;
  recordingId: string;
  /** null: not seen before (created since the last poll). */
  from: string | null;
  to: string;
  lastError?: string;
}

export interface SubscriptionEvent {
  type: 'subscription';
  time: string;
  subscriptionId: string;
  state: 'failing' | 'recovered';
}

/** `text` cut to ERROR_CHARS code points (an ellipsis last when cut), as a string of its own. */
export function keptError(text: string): string {
  const points = Array.from(text.slice(0, ERROR_CHARS * 2)).slice(0, ERROR_CHARS + 1);
  if (points.length > ERROR_CHARS) points.splice(ERROR_CHARS - 1, points.length, '…');
  // join() makes a new flat string: a slice() of a long one may keep the whole of it alive.
  return points.join('');
}

/**
 * When a row says a delivery last did something: its last attempt, else its creation (a new
 * delivery not attempted yet); null when it says neither.
 */
function activityAt(d: Delivery): number | null {
  return attemptTimeOf(d) ?? timeOf(field(d, 'createdAt'));
}

function timeOf(iso: string): number | null {
  return iso === '' ? null : parseIsoTime(iso, INSTANT);
}

/**
 * The changes of deliveries' statuses, from evidence (cli.md, deliveries, "Evidence, not
 * inference"): a change is a delivery rfs had seen before with another status, or one never
 * seen whose last attempt (or creation) is newer than anything the polls before had shown. A
 * delivery that merely surfaced behind a full list (an old failure, once newer rows left the
 * list) is remembered but is no change: nothing happened to it while watched.
 */
export class StatusTracker {
  /** Delivery id → status, least recently seen first. */
  private readonly seen = new Map<string, string>();
  private polls = 0;
  /** The newest attempt (or creation) any poll has shown so far, in the server's time. */
  private newest = Number.NEGATIVE_INFINITY;
  /** A row showed an attempt in the future: for the notice, said once. */
  future: { id: string; at: string } | undefined;

  /** The changes since the last poll, in id order; the first poll only sets the baseline. */
  poll(deliveries: Iterable<Delivery>, now: number): StatusChange[] {
    const first = this.polls++ === 0;
    const changes: StatusChange[] = [];
    const time = new Date(now).toISOString();
    const before = this.newest;
    const facts = pollFacts(deliveries);
    let polled = 0;
    for (const fact of facts.all()) {
      const d = fact.row;
      const to = fact.status;
      polled += 1;
      const id = keptId(fact.id);
      const from = this.seen.get(id) ?? null;
      const at = activityAt(d);
      if (at !== null && isFutureTime(at, now)) {
        this.future ??= { id, at: field(d, 'lastAttemptAt') || field(d, 'createdAt') };
      } else if (at !== null && at > this.newest) {
        this.newest = at;
      }
      // Rows of one attempt that disagree: its status is not known this poll, so nothing changed.
      if (facts.conflicted(fact.id)) {
        if (from !== null) touch(this.seen, id, from);
        continue;
      }
      // Deleted and set again: the newest seen go last, the first to go are the longest unseen.
      touch(this.seen, id, to);
      if (first || from === to) continue;
      // Never seen, and nothing newer than what was seen before: it only surfaced.
      if (from === null && (at === null || at <= before || isFutureTime(at, now))) continue;
      const lastError = to === 'SUCCEEDED' ? null : lastErrorOf(d);
      changes.push({
        type: 'delivery',
        time,
        id,
        subscriptionId: keptId(field(d, 'subscriptionId')),
        recordingId: keptId(field(d, 'recordingId')),
        from,
        to,
        ...(lastError === null ? {} : { lastError: keptError(lastError) }),
      });
    }
    forgetOldest(this.seen, Math.max(REMEMBERED, polled));
    return changes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** One fact per delivery of a poll's rows, each from its row's own status (none: skipped). */
function pollFacts(deliveries: Iterable<Delivery>): DeliveryFacts {
  return new DeliveryFacts([{ status: undefined, subscriptionId: undefined, rows: [...deliveries], full: false }]);
}

function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
}

type Health = 'ok' | 'failing';

/**
 * Whether each subscription is failing, decided by attempt times: the outcome (FAILED or
 * SUCCEEDED) of its latest attempt any poll has shown. The first poll sets it silently; a later
 * poll changes it only with an attempt newer than the one that decided it, so an old failure
 * that surfaces behind a full list changes nothing. One event per poll and subscription, when
 * the poll ends in the other state than it began.
 */
export class SubscriptionHealth {
  private readonly state = new Map<string, { health: Health; at: number }>();
  private polls = 0;

  /** Is `subscriptionId` failing now (undefined: nothing seen of it yet)? */
  failing(subscriptionId: string): boolean | undefined {
    const s = this.state.get(subscriptionId);
    return s === undefined ? undefined : s.health === 'failing';
  }

  poll(deliveries: readonly Delivery[], _changes: readonly StatusChange[], now: number): SubscriptionEvent[] {
    const time = new Date(now).toISOString();
    const first = this.polls++ === 0;
    const was = new Map<string, Health>();
    const facts = pollFacts(deliveries);
    for (const fact of facts.all()) {
      const status = fact.status;
      if (status !== 'FAILED' && status !== 'SUCCEEDED') continue;
      const id = keptId(fact.subscriptionId);
      const at = fact.attemptAt;
      // Not known (rows that disagree), or no evidence of when (none, or in the future).
      if (id === '' || at === null || isFutureTime(at, now) || facts.conflicted(fact.id)) continue;
      const known = this.state.get(id);
      if (known !== undefined && at <= known.at) continue;
      if (!was.has(id) && known !== undefined) was.set(id, known.health);
      this.state.delete(id);
      this.state.set(id, { health: status === 'FAILED' ? 'failing' : 'ok', at });
    }
    forgetOldest(this.state, REMEMBERED);
    if (first) return [];
    const events: SubscriptionEvent[] = [];
    for (const [id, before] of [...was].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const after = this.state.get(id)?.health;
      if (before === 'ok' && after === 'failing') events.push({ type: 'subscription', time, subscriptionId: id, state: 'failing' });
      if (before === 'failing' && after === 'ok') events.push({ type: 'subscription', time, subscriptionId: id, state: 'recovered' });
    }
    return events;
  }
}

/** An id as a string of its own (see keptError); ids are short, this only copies long ones. */
function keptId(id: string): string {
  return id.length > 64 ? keptError(id) : id;
}

function forgetOldest<V>(map: Map<string, V>, keep: number): void {
  for (const key of map.keys()) {
    if (map.size <= keep) return;
    map.delete(key);
  }
}
