// watch's change tracker from evidence (cli.md, deliveries, "Evidence, not inference";
// watch/changes.ts): one delivery shown by several lists of one poll is one delivery, the row
// of its later attempt standing for it, and rows of one attempt time that disagree change
// nothing; a row dated in the future neither moves the newest time seen nor a subscription's
// health, so later deliveries are still reported. And summary counts such a delivery once, by
// its later attempt.
import { describe, expect, it } from 'vitest';
import { groupDeliveries } from '../../../../src/commands/deliveries/summary/group.js';
import { StatusTracker, SubscriptionHealth } from '../../../../src/commands/deliveries/watch/changes.js';
import type { Delivery } from '../../../../src/shared/schemas.js';

const T0 = Date.parse('2026-11-22T14:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const row = (id: string, status: string, at: number, subscriptionId = 'wh_1'): Delivery => ({
  id,
  status,
  subscriptionId,
  recordingId: 'rec_1',
  lastAttemptAt: iso(at),
});
const ids = Array.from({ length: 50 }, (_, i) => `dlv_${String(i).padStart(2, '0')}`);

describe('one delivery in several lists of one poll', () => {
  it('is no change from poll to poll when its rows say different statuses at different times', () => {
    const tracker = new StatusTracker();
    // The same 50 deliveries in the FAILED, PENDING and SUCCEEDED lists, with their attempt times
    // shuffled between lists from poll to poll: the later attempt is SUCCEEDED every time.
    const poll = (n: number) =>
      ids.flatMap((id) => [
        row(id, 'FAILED', T0 + ((n + 0) % 3) * 1000 - 10_000),
        row(id, 'PENDING', T0 + ((n + 1) % 3) * 1000 - 10_000),
        row(id, 'SUCCEEDED', T0 + 5_000),
      ]);
    const changes = [0, 1, 2, 3, 4, 5].flatMap((n) => tracker.poll(poll(n), T0 + 10_000 + n * 5_000));
    expect(changes).toEqual([]);
  });

  it('rows of one attempt time that disagree are not known: no change, in either direction', () => {
    const tracker = new StatusTracker();
    tracker.poll([row('dlv_a', 'FAILED', T0)], T0 + 1000);
    expect(tracker.poll([row('dlv_a', 'SUCCEEDED', T0 + 2000), row('dlv_a', 'FAILED', T0 + 2000)], T0 + 3000)).toEqual([]);
    expect(tracker.poll([row('dlv_a', 'FAILED', T0 + 2000), row('dlv_a', 'SUCCEEDED', T0 + 2000)], T0 + 4000)).toEqual([]);
    // Then a row that tells: one change, from what was known.
    expect(tracker.poll([row('dlv_a', 'SUCCEEDED', T0 + 5000)], T0 + 6000)).toMatchObject([
      { id: 'dlv_a', from: 'FAILED', to: 'SUCCEEDED' },
    ]);
  });

  it("a subscription's health follows the later attempt, whichever list shows it first", () => {
    const health = new SubscriptionHealth();
    health.poll([row('dlv_a', 'SUCCEEDED', T0)], [], T0 + 1000);
    const events = health.poll([row('dlv_a', 'SUCCEEDED', T0 + 3000), row('dlv_a', 'FAILED', T0 + 2000)], [], T0 + 4000);
    expect(events).toEqual([]);
    expect(health.failing('wh_1')).toBe(false);
  });

  it('summary counts it once, by the row of its later attempt', () => {
    const known = { isDeleted: () => false, urlOf: () => null };
    const groups = groupDeliveries(
      [
        { status: 'FAILED', deliveries: [row('dlv_a', 'FAILED', T0), row('dlv_b', 'FAILED', T0)], full: false },
        { status: 'PENDING', deliveries: [row('dlv_a', 'PENDING', T0 + 60_000)], full: false },
      ],
      known,
    );
    expect(groups.map((g) => [g.status, g.count])).toEqual([
      ['FAILED', 1],
      ['PENDING', 1],
    ]);
  });
});

describe('a row dated in the future', () => {
  it('does not silence later deliveries, nor decide health, and is kept for the notice', () => {
    const tracker = new StatusTracker();
    const health = new SubscriptionHealth();
    const future = row('dlv_future', 'SUCCEEDED', Date.parse('2099-01-01T00:00:00Z'));
    const first = [future, row('dlv_old', 'SUCCEEDED', T0)];
    tracker.poll(first, T0 + 1000);
    health.poll(first, [], T0 + 1000);
    expect(tracker.future).toEqual({ id: 'dlv_future', at: '2099-01-01T00:00:00.000Z' });
    const second = [future, row('dlv_old', 'SUCCEEDED', T0), row('dlv_new', 'FAILED', T0 + 5000)];
    const changes = tracker.poll(second, T0 + 10_000);
    expect(changes).toMatchObject([{ id: 'dlv_new', from: null, to: 'FAILED' }]);
    expect(health.poll(second, changes, T0 + 10_000)).toEqual([
      { type: 'subscription', time: iso(T0 + 10_000), subscriptionId: 'wh_1', state: 'failing' },
    ]);
  });
});
