// The full-screen view of `deliveries watch` as text (board.ts, render.ts): the parts the tmux
// screens do not reach — counts that are lower bounds (a list came back full), server text that
// tries to drive the terminal, and sizes too small for everything.
import { expect, it } from 'vitest';
import type { SubscriptionCheck } from '../../src/api/subscriptions.js';
import { Board } from '../../src/commands/deliveries/watch/board.js';
import { StatusTracker } from '../../src/commands/deliveries/watch/changes.js';
import { renderView } from '../../src/commands/deliveries/watch/render.js';
import type { Slice } from '../../src/commands/deliveries/census.js';

const START = Date.parse('2026-11-26T01:00:00Z');

function live(subs: Record<string, string>): SubscriptionCheck {
  const byId = new Map(Object.entries(subs).map(([id, url]) => [id, { id, url, events: ['recording.completed'] }]));
  return { byId, isDeleted: (id) => id !== '' && !byId.has(id) };
}

function failed(n: number, subscriptionId: string, lastError: string, from = 0) {
  return Array.from({ length: n }, (_, i) => ({ id: `dlv_${subscriptionId}${from + i}`, status: 'FAILED', subscriptionId, lastError }));
}

it('reads 50+ for a list that came back full, and says what that means', () => {
  const board = new Board(START);
  const slices: Slice[] = [
    { status: 'FAILED', deliveries: failed(50, 'wh_a', 'HTTP 500'), full: true },
    { status: 'FAILED', deliveries: failed(3, 'wh_b', 'HTTP 401'), full: false },
  ];
  const state = board.update(slices, [], live({ wh_a: 'https://a.example/hook', wh_b: 'https://b.example/hook' }), START);
  const lines = renderView({ board: state, selected: 0, intervalMs: 5000 }, { columns: 120, rows: 20 });
  expect(lines.find((l) => l.includes('a.example'))).toMatch(/\s50\+\s+0\s+0\s+HTTP 500\s/);
  expect(lines.find((l) => l.includes('b.example'))).toMatch(/\s3\s+0\s+0\s+HTTP 401\s/);
  expect(lines).toContain('50+: a list came back full (50 rows); there are at least that many');
});

it('counts failures per minute since the start, in the sparkline, and lists the latest first', () => {
  const board = new Board(START);
  const tracker = new StatusTracker();
  const subs = live({ wh_a: 'https://a.example/hook' });
  const poll = (deliveries: ReturnType<typeof failed>, at: number) => {
    const slices: Slice[] = [{ status: 'FAILED', deliveries, full: false }];
    return board.update(slices, tracker.poll(deliveries, at), subs, at);
  };
  poll([], START);
  poll(failed(1, 'wh_a', 'HTTP 500'), START + 30_000);
  poll(failed(4, 'wh_a', 'HTTP 502'), START + 150_000);
  const state = poll(failed(5, 'wh_a', 'HTTP 502'), START + 200_000);
  // Minutes 0..3 seen: 1 failure in minute 0, none in 1, 3 more in minute 2 (and 1 in 3).
  expect(state.rows[0]?.perMinute.slice(-4)).toEqual([1, 0, 3, 1]);
  const lines = renderView({ board: state, selected: 0, intervalMs: 5000 }, { columns: 120, rows: 20 });
  expect(lines.find((l) => l.includes('a.example'))).toMatch(/HTTP 502\s+\u2584\u2581\u2588\u2584$/);
  expect(lines.slice(lines.indexOf('LATEST FAILURES') + 1, lines.indexOf('LATEST FAILURES') + 3)).toEqual([
    '  dlv_wh_a4  wh_a  HTTP 502',
    '  dlv_wh_a3  wh_a  HTTP 502',
  ]);
});

it('never lets server text drive the terminal, and never draws past the terminal', () => {
  const board = new Board(START);
  const state = board.update(
    [{ status: 'FAILED', deliveries: failed(30, 'wh_x', '\u001b[2Jgone\u202e'), full: false }],
    [],
    live({ wh_x: 'https://x/\u001b]0;t\u0007', wh_y: 'https://y.example/' }),
    START,
  );
  for (const size of [
    { columns: 80, rows: 24 },
    { columns: 40, rows: 6 },
    { columns: 120, rows: 3 },
  ]) {
    const lines = renderView({ board: state, selected: 1, intervalMs: 5000 }, size);
    expect(lines.length).toBeLessThanOrEqual(size.rows);
    for (const line of lines) {
      expect([...line].length).toBeLessThanOrEqual(size.columns);
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    }
  }
  // The selected row stays in sight when the terminal is too short for all of them.
  const short = renderView({ board: state, selected: 1, intervalMs: 5000 }, { columns: 120, rows: 5 });
  expect(short.some((l) => l.startsWith('> ') && l.includes('y.example'))).toBe(true);
});
