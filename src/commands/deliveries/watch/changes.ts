// What `deliveries watch` reports (cli.md, deliveries; issue 27): a delivery's status as each
// poll sees it, compared with the poll before. A delivery first seen after the first poll is a
// change from null; one that drops out of every list (past the 50 newest) is no change at all.
import type { Delivery } from '../../../shared/schemas.js';
import { field } from '../../../output/fields.js';
import { lastErrorOf } from '../census.js';

export interface StatusChange {
  time: string;
  id: string;
  subscriptionId: string;
  recordingId: string;
  /** null: not seen before (created since the last poll). */
  from: string | null;
  to: string;
  lastError?: string;
}

export class StatusTracker {
  private readonly seen = new Map<string, string>();
  private polls = 0;

  /** The changes since the last poll, oldest attempt first; the first poll only sets the baseline. */
  poll(deliveries: Iterable<Delivery>, now: number): StatusChange[] {
    const first = this.polls++ === 0;
    const changes: StatusChange[] = [];
    const time = new Date(now).toISOString();
    for (const d of deliveries) {
      const to = field(d, 'status');
      if (to === '') continue;
      const from = this.seen.get(d.id) ?? null;
      this.seen.set(d.id, to);
      if (first || from === to) continue;
      const lastError = to === 'SUCCEEDED' ? null : lastErrorOf(d);
      changes.push({
        time,
        id: d.id,
        subscriptionId: field(d, 'subscriptionId'),
        recordingId: field(d, 'recordingId'),
        from,
        to,
        ...(lastError === null ? {} : { lastError }),
      });
    }
    return changes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
