// The full-screen view of `deliveries watch` as text (board.ts, render.ts): the parts the tmux
// screens do not reach — counts that are lower bounds (a list came back full), server text that
// tries to drive the terminal, and sizes too small for everything.
import { expect, it } from 'vitest';
import type { SubscriptionCheck } from '../../../../src/api/subscriptions.js';
import { Board } from '../../../../src/commands/deliveries/watch/board.js';
import { StatusTracker } from '../../../../src/commands/deliveries/watch/changes.js';
import { renderView } from '../../../../src/commands/deliveries/watch/render.js';
import type { Slice } from '../../../../src/commands/deliveries/census.js';
import { cutUrl } from '../../../../src/commands/deliveries/watch/render.js';
import { keptError, StatusTracker as Tracker, SubscriptionHealth } from '../../../../src/commands/deliveries/watch/changes.js';
import { displayWidth } from '../../../../src/output/table.js';

const START = Date.parse('2026-11-26T01:00:00Z');

function live(subs: Record<string, string>): SubscriptionCheck {
  const byId = new Map(Object.entries(subs).map(([id, url]) => [id, { id, url, events: ['recording.completed'] }]));
  return { byId, isDeleted: (id) => id !== '' && !byId.has(id) };
}

/** `n` FAILED deliveries; with `at`, their attempts a second apart up to `at`, the last the newest. */
function failed(n: number, subscriptionId: string, lastError: string, from = 0, at?: number) {
  return Array.from({ length: n }, (_, i) => ({
    id: `dlv_${subscriptionId}${from + i}`,
    status: 'FAILED',
    subscriptionId,
    lastError,
    ...(at === undefined ? {} : { lastAttemptAt: new Date(at - (n - 1 - i) * 1000).toISOString() }),
  }));
}

it('reads 50+ for a list that came back full, and says what that means', () => {
  const board = new Board(START);
  const slices: Slice[] = [
    { status: 'FAILED', deliveries: failed(50, 'wh_a', 'HTTP 500'), full: true },
    { status: 'FAILED', deliveries: failed(3, 'wh_b', 'HTTP 401'), full: false },
  ];
  const state = board.update(slices, [], live({ wh_a: 'https://a.example/hook', wh_b: 'https://b.example/hook' }), START);
  const lines = renderView({ board: state, selected: 0, pace: 'every 5 s' }, { columns: 120, rows: 20 });
  expect(lines.find((l) => l.includes('a.example'))).toMatch(/\s50\+\s+0\s+0\s+HTTP 500\s/);
  expect(lines.find((l) => l.includes('b.example'))).toMatch(/\s3\s+0\s+0\s+HTTP 401\s/);
  expect(lines).toContain('50+: a list came back full (50 rows); there are at least that many');
});

it('counts failures per minute since the start, in the sparkline, and lists the latest failures newest attempt first, with their age', () => {
  const board = new Board(START);
  const tracker = new StatusTracker();
  const subs = live({ wh_a: 'https://a.example/hook' });
  const poll = (deliveries: ReturnType<typeof failed>, at: number) => {
    const slices: Slice[] = [{ status: 'FAILED', deliveries, full: false }];
    return board.update(slices, tracker.poll(deliveries, at), subs, at);
  };
  poll([], START);
  poll(failed(1, 'wh_a', 'HTTP 500', 0, START + 29_000), START + 30_000);
  poll(failed(4, 'wh_a', 'HTTP 502', 0, START + 149_000), START + 150_000);
  const state = poll(failed(5, 'wh_a', 'HTTP 502', 0, START + 199_000), START + 200_000);
  // Minutes 0..3 seen: 1 failure in minute 0, none in 1, 3 more in minute 2 (and 1 in 3).
  expect(state.rows[0]?.perMinute.slice(-4)).toEqual([1, 0, 3, 1]);
  const lines = renderView({ board: state, selected: 0, pace: 'every 5 s' }, { columns: 120, rows: 20 });
  expect(lines.find((l) => l.includes('a.example'))).toMatch(/HTTP 502\s+\u2584\u2581\u2588\u2584$/);
  const head = lines.findIndex((l) => l.startsWith('LATEST FAILURES'));
  expect(lines.slice(head, head + 4)).toEqual([
    'LATEST FAILURES             AGE      LAST ERROR',
    '  dlv_wh_a4                 1s ago   HTTP 502',
    '  dlv_wh_a3                 2s ago   HTTP 502',
    '  dlv_wh_a2                 3s ago   HTTP 502',
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
    const lines = renderView({ board: state, selected: 1, pace: 'every 5 s' }, size);
    expect(lines.length).toBeLessThanOrEqual(size.rows);
    for (const line of lines) {
      expect(displayWidth(line)).toBeLessThanOrEqual(size.columns);
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    }
  }
  // The selected row stays in sight when the terminal is too short for all of them.
  const short = renderView({ board: state, selected: 1, pace: 'every 5 s' }, { columns: 120, rows: 5 });
  expect(short.some((l) => l.startsWith('> ') && l.includes('y.example'))).toBe(true);
});

// one cell-width rule (the table's), URLs cut where they stay distinct.
it('tells two subscriptions on one host apart at 80 columns: the scheme goes first, then the middle of the path', () => {
  const board = new Board(START);
  const subs = live({
    wh_h: 'http://127.0.0.1:41234/_sandbox/receivers/healthy',
    wh_f: 'http://127.0.0.1:41234/_sandbox/receivers/failing',
  });
  const state = board.update([{ status: 'FAILED', deliveries: failed(2, 'wh_f', 'HTTP 503'), full: false }], [], subs, START);
  const lines = renderView({ board: state, selected: 0, pace: 'every 20 s' }, { columns: 80, rows: 12 });
  const rows = lines.filter((l) => /^[> ] [ ✗✓] 127/.test(l));
  expect(rows.map((l) => l.slice(4, 30).trimEnd())).toEqual(['127.0.0.1:41234…/failing', '127.0.0.1:41234…/healthy']);
  expect(cutUrl('https://hooks.example.com/a/very/long/path/to/the/receiver', 30)).toBe('hooks.example.com…/receiver');
  expect(cutUrl('https://hooks.example.com/short', 40)).toBe('https://hooks.example.com/short');
  expect(cutUrl('https://hooks.example.com/short', 26)).toBe('hooks.example.com/short');
  // The host does not fit beside the path: its middle goes, its port and the path's end stay.
  expect(cutUrl('http://a-very-long-host-name.internal.example:8443/x', 20)).toBe('a-very-long-…:8443/x');
  // Not even that fits: the host's start and its end (the port), the middle cut.
  expect(cutUrl('http://a-very-long-host-name.internal.example:8443/receiver', 20)).toBe('a-ver…:8443/receiver');
  expect(cutUrl('http://a-very-long-host-name.internal.example:8443/receiver', 12)).toBe('a-very…:8443');
  // No port: the host whole, then the path's last characters.
  expect(cutUrl('https://hooks.example.com/receivers/orders-service-production', 24)).toBe('hooks.example.com…uction');
  for (const w of [5, 12, 20, 26, 40]) expect(displayWidth(cutUrl('http://宛先.例え.jp:8080/受信/フック', w))).toBeLessThanOrEqual(w);
});

// cli.md, watch: "URLs keep the part that tells two subscriptions apart (host:port and path)".
it("keeps each receiver's port and path readable at 60, 80 and 120 columns", () => {
  const board = new Board(START);
  const urls = { wh_h: 'http://127.0.0.1:41233/healthy', wh_f: 'http://127.0.0.1:41235/failing' };
  const state = board.update(
    [{ status: 'FAILED', deliveries: failed(50, 'wh_f', 'HTTP 503', 0, START - 1000), full: true }],
    [],
    live(urls),
    START,
  );
  const shown: Record<number, string[]> = {
    60: ['127…:41233/healthy', '127…:41235/failing'],
    80: ['127.0.0.1:41233/healthy', '127.0.0.1:41235/failing'],
    120: [urls.wh_h, urls.wh_f],
  };
  for (const columns of [60, 80, 120]) {
    const pace = 'every 41 s (8 requests a poll, budget 12 a minute)';
    const lines = renderView({ board: state, selected: 0, pace }, { columns, rows: 20 });
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    expect(lines.slice(0, columns > 60 ? 1 : 2).join(' ')).toBe(`deliveries watch, ${pace}`);
    const rows = lines.filter((l) => /^[> ] [ ✗✓] (http:\/\/)?127/.test(l));
    expect(
      rows.map((l) => l.slice(4).split(/ {2,}/)[0]),
      lines.join('\n'),
    ).toEqual(shown[columns]);
    // The counts and the error stay on the row; at 60 the sparkline is what goes.
    expect(rows[1]).toMatch(/ 50\+ +0 +0 +HTTP 503/);
    expect(lines.some((l) => l.includes('failures/min'))).toBe(columns > 60);
    // The pace line too: wrapped, never cut.
    expect(lines.filter((l) => l.endsWith('…'))).toEqual([]);
    // What the screen says below the table wraps at words: no line ends inside a word.
    const notice = lines.filter((l) => /^50\+|that many$/.test(l));
    expect(notice.join(' ')).toBe('50+: a list came back full (50 rows); there are at least that many');
  }
});

it('keeps CJK error text within the width, counting the two cells each character takes', () => {
  const board = new Board(START);
  const error = '接続が拒否されました：受信側のサーバーが応答しません（タイムアウト）';
  const state = board.update(
    [{ status: 'FAILED', deliveries: failed(3, 'wh_j', error), full: false }],
    new Tracker().poll([], START),
    live({ wh_j: 'https://jp.example/フック' }),
    START,
  );
  for (const columns of [80, 120]) {
    const lines = renderView({ board: state, selected: 0, pace: 'every 20 s' }, { columns, rows: 14 });
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
    expect(lines.find((l) => l.includes('jp.example'))).toContain('接続が');
  }
});

it('drops a cleanly deleted subscription from the view, and keeps one whose deliveries still fail', () => {
  const board = new Board(START);
  const succeeded = [{ id: 'dlv_gone1', status: 'SUCCEEDED', subscriptionId: 'wh_gone' }];
  const state = board.update(
    [
      { status: 'SUCCEEDED', deliveries: succeeded, full: false },
      { status: 'FAILED', deliveries: failed(1, 'wh_dead', 'HTTP 410'), full: false },
    ],
    [],
    live({ wh_live: 'https://live.example/hook' }),
    START,
  );
  expect(state.rows.map((r) => [r.subscriptionId, r.url])).toEqual([
    ['wh_live', 'https://live.example/hook'],
    ['wh_dead', null],
  ]);
});

it('marks a row that recovered after failures, or started failing after successes, and says so once', () => {
  const board = new Board(START);
  const tracker = new Tracker();
  const health = new SubscriptionHealth();
  const subs = live({ wh_a: 'https://a.example/hook', wh_b: 'https://b.example/hook' });
  const poll = (deliveries: { id: string; status: string; subscriptionId: string; lastAttemptAt: string }[], at: number) => {
    const slices: Slice[] = ['FAILED', 'SUCCEEDED'].map((status) => ({
      status,
      deliveries: deliveries.filter((d) => d.status === status),
      full: false,
    }));
    const changes = tracker.poll(deliveries, at);
    const events = health.poll(deliveries, changes, at);
    return { state: board.update(slices, changes, subs, at, undefined, events), events };
  };
  const d = (id: string, status: string, subscriptionId: string, minute: number) => ({
    id,
    status,
    subscriptionId,
    lastAttemptAt: new Date(START + minute * 60_000).toISOString(),
  });
  // The baseline: a is failing, b is fine.
  expect(poll([d('dlv_1', 'FAILED', 'wh_a', 0), d('dlv_2', 'SUCCEEDED', 'wh_b', 0)], START).events).toEqual([]);
  const second = poll(
    [
      d('dlv_1', 'FAILED', 'wh_a', 0),
      d('dlv_2', 'SUCCEEDED', 'wh_b', 0),
      d('dlv_3', 'SUCCEEDED', 'wh_a', 1),
      d('dlv_4', 'FAILED', 'wh_b', 1),
    ],
    START + 60_000,
  );
  const time = new Date(START + 60_000).toISOString();
  expect(second.events).toEqual([
    { type: 'subscription', time, subscriptionId: 'wh_a', state: 'recovered' },
    { type: 'subscription', time, subscriptionId: 'wh_b', state: 'failing' },
  ]);
  const lines = renderView({ board: second.state, selected: 0, pace: 'every 20 s' }, { columns: 80, rows: 12 });
  expect(lines.find((l) => l.includes('a.example'))?.slice(0, 4)).toBe('> ✓ ');
  expect(lines.find((l) => l.includes('b.example'))?.slice(0, 4)).toBe('  ✗ ');
  expect(lines).toContain('✗ started failing, ✓ recovered, while watched');
  // Nothing new: no more events, the marks stay.
  expect(poll([d('dlv_3', 'SUCCEEDED', 'wh_a', 1), d('dlv_4', 'FAILED', 'wh_b', 1)], START + 120_000).events).toEqual([]);
});

// memory bounded for any run time and any server.
it('remembers the newest 1,000 deliveries (or the last poll, when larger) and keeps errors cut to 200 characters', () => {
  const tracker = new Tracker();
  // Each delivery's attempt newer than any before (its number is its time): every one is new.
  const many = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `dlv_${from + i}`,
      status: 'FAILED',
      subscriptionId: 'wh_a',
      lastError: 'x'.repeat(20_000),
      lastAttemptAt: new Date(START + (from + i) * 1000).toISOString(),
    }));
  // Each poll's time after its attempts: a time in the future is no evidence (changes.ts).
  tracker.poll(many(0, 10), START + 10_000);
  for (let p = 1; p <= 100; p++) {
    const changes = tracker.poll(many(p * 50, 50), START + (p * 50 + 50) * 1000);
    // Every delivery is new, and its error kept short.
    expect(changes).toHaveLength(50);
    for (const c of changes) expect(c.lastError).toHaveLength(200);
  }
  expect((tracker as unknown as { seen: Map<string, string> }).seen.size).toBe(1000);
  // A poll larger than that is remembered whole: nothing of it comes back as new.
  tracker.poll(many(100_000, 3000), START + 200_000_000);
  expect(tracker.poll(many(100_000, 3000), START + 200_000_001)).toEqual([]);
  expect(keptError('a'.repeat(199))).toBe('a'.repeat(199));
  expect(keptError('a'.repeat(201))).toBe(`${'a'.repeat(199)}…`);
});

// cli.md, "Evidence, not inference": a full list's order is the server's, and ids say nothing of time.
it('orders the latest failures by attempt time, not by id or by the order a list gave them', () => {
  const board = new Board(START);
  const at = (minutes: number) => new Date(START - minutes * 60_000).toISOString();
  const rows = [
    { id: 'dlv_zaNi', status: 'FAILED', subscriptionId: 'wh_a', lastError: 'HTTP 503', lastAttemptAt: at(28) },
    { id: 'dlv_aaaa', status: 'FAILED', subscriptionId: 'wh_a', lastError: 'HTTP 503', lastAttemptAt: at(0.5) },
    { id: 'dlv_mmmm', status: 'FAILED', subscriptionId: 'wh_a', lastError: 'HTTP 500', lastAttemptAt: at(3) },
    { id: 'dlv_none', status: 'FAILED', subscriptionId: 'wh_a', lastError: 'HTTP 500' },
  ];
  const state = board.update([{ status: 'FAILED', deliveries: rows, full: true }], [], live({ wh_a: 'https://a.example/hook' }), START);
  expect(state.latest.map((f) => f.id)).toEqual(['dlv_aaaa', 'dlv_mmmm', 'dlv_zaNi', 'dlv_none']);
  const lines = renderView({ board: state, selected: 0, pace: 'every 5 s' }, { columns: 100, rows: 20 });
  const head = lines.findIndex((l) => l.startsWith('LATEST FAILURES'));
  expect(lines.slice(head + 1, head + 5).map((l) => l.split(/\s{2,}/).slice(1, 3))).toEqual([
    ['dlv_aaaa', '30s ago'],
    ['dlv_mmmm', '3m ago'],
    ['dlv_zaNi', '28m ago'],
    ['dlv_none', 'HTTP 500'],
  ]);
});
