// What `deliveries watch` reports (cli.md, deliveries): a delivery's status as
// each poll sees it, compared with the poll before, and a subscription's health as those changes
// tell it (failing after successes, recovered after failures). A delivery first seen after the
// first poll is a change from null; one that drops out of every list (past the 50 newest) is no
// change at all.
//
// Memory stays bounded for any run time and any server: the statuses of the
// newest 1,000 deliveries seen are kept (or of the last poll's, when it saw more), the health
// of at most 1,000 subscriptions, and error texts are cut to 200 characters, copied out of the
// answer they came in so that a kept text never holds a 20 KB one alive.
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

export class StatusTracker {
  /** Delivery id → status, least recently seen first. */
  private readonly seen = new Map<string, string>();
  private polls = 0;

  /** The changes since the last poll, in id order; the first poll only sets the baseline. */
  poll(deliveries: Iterable<Delivery>, now: number): StatusChange[] {
    const first = this.polls++ === 0;
    const changes: StatusChange[] = [];
    const time = new Date(now).toISOString();
    let polled = 0;
    for (const d of deliveries) {
      const to = field(d, 'status');
      if (to === '') continue;
      polled += 1;
      const id = keptId(d.id);
      const from = this.seen.get(id) ?? null;
      // Deleted and set again: the newest seen go last, the first to go are the longest unseen.
      this.seen.delete(id);
      this.seen.set(id, to);
      if (first || from === to) continue;
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

type Health = 'ok' | 'failing';

/**
 * Whether each subscription is failing, from the outcome of its latest attempt: set silently by
 * the first poll (the newest FAILED or SUCCEEDED delivery of each), then changed by each
 * delivery that becomes FAILED or SUCCEEDED. A change of state is one event.
 */
export class SubscriptionHealth {
  private readonly state = new Map<string, Health>();
  private polls = 0;

  /** Is `subscriptionId` failing now (undefined: nothing seen of it yet)? */
  failing(subscriptionId: string): boolean | undefined {
    const s = this.state.get(subscriptionId);
    return s === undefined ? undefined : s === 'failing';
  }

  poll(deliveries: readonly Delivery[], changes: readonly StatusChange[], now: number): SubscriptionEvent[] {
    const time = new Date(now).toISOString();
    if (this.polls++ === 0) {
      const newest = new Map<string, { at: string; health: Health }>();
      for (const d of deliveries) {
        const status = field(d, 'status');
        if (status !== 'FAILED' && status !== 'SUCCEEDED') continue;
        const id = field(d, 'subscriptionId');
        const at = field(d, 'lastAttemptAt');
        const known = newest.get(id);
        if (id !== '' && (known === undefined || at > known.at)) newest.set(id, { at, health: status === 'FAILED' ? 'failing' : 'ok' });
      }
      for (const [id, { health }] of newest) this.state.set(keptId(id), health);
      forgetOldest(this.state, REMEMBERED);
      return [];
    }
    const events: SubscriptionEvent[] = [];
    // In the order of their attempts: the latest attempt decides.
    const attemptAt = new Map<string, string>();
    for (const d of deliveries) attemptAt.set(d.id, field(d, 'lastAttemptAt'));
    const at = (c: StatusChange): string => attemptAt.get(c.id) ?? '';
    for (const change of [...changes].sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0))) {
      if (change.to !== 'FAILED' && change.to !== 'SUCCEEDED') continue;
      const id = change.subscriptionId;
      if (id === '') continue;
      const before = this.state.get(id);
      const after: Health = change.to === 'FAILED' ? 'failing' : 'ok';
      this.state.delete(id);
      this.state.set(id, after);
      if (before === 'ok' && after === 'failing') events.push({ type: 'subscription', time, subscriptionId: id, state: 'failing' });
      if (before === 'failing' && after === 'ok') events.push({ type: 'subscription', time, subscriptionId: id, state: 'recovered' });
    }
    forgetOldest(this.state, REMEMBERED);
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
