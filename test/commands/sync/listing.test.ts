// What one pass handles and in which order (sync/listing.ts), against a fake client that
// serves list pages as the test says: streamed from the first page, --max-items stopping the
// listing, --order priority listing everything first, each recording at most once.
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse, RequestOptions } from '../../../src/api/types.js';
import { ApiError } from '../../../src/core/errors.js';
import type { RecordingState } from '../../../src/sync/journal.js';
import { type PassItem, passItems, type PassPlan } from '../../../src/sync/listing.js';

interface Item {
  id: string;
  title: string;
  priority: 'URGENT' | 'HIGH' | 'MEDIUM' | 'LOW';
  createdAt: string;
}

const item = (n: number, priority: Item['priority'] = 'MEDIUM'): Item => ({
  id: `rec_${String(n).padStart(4, '0')}`,
  title: `recording ${n}`,
  priority,
  createdAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
});

/**
 * A client whose list pages come from `page(cursor)` (undefined cursor: the first page);
 * a page that is `'never'` stays unanswered. Every list request is recorded.
 */
function fakeClient(page: (cursor: string | undefined) => { items: Item[]; next: string | null } | 'never' | Error) {
  const requests: (string | undefined)[] = [];
  const client: ApiClient = {
    baseUrl: 'http://127.0.0.1:1',
    redactedKey: 'service_pk_…test',
    close: async () => undefined,
    request<T>(o: RequestOptions<T>): Promise<ApiResponse<T>> {
      if (o.path !== '/recordings') throw new Error(`unexpected request ${o.path}`);
      const cursor = o.query?.cursor as string | undefined;
      requests.push(cursor);
      const p = page(cursor);
      if (p === 'never') return new Promise(() => undefined);
      if (p instanceof Error) return Promise.reject(p);
      const body = { data: p.items, meta: { count: p.items.length, limit: 100, hasMore: p.next !== null, nextCursor: p.next } };
      o.onJson?.(body);
      return Promise.resolve({ status: 200, data: body as T, requestId: null, headers: {}, attempts: 1 });
    },
    requestRaw() {
      throw new Error('the listing makes no raw requests');
    },
  };
  return { client, requests };
}

/** Pages of 100 over `items`, cursors `p1`, `p2`, … */
function paged(items: Item[]) {
  return (cursor: string | undefined) => {
    const n = cursor === undefined ? 0 : Number(cursor.slice(1));
    const next = (n + 1) * 100 < items.length ? `p${n + 1}` : null;
    return { items: items.slice(n * 100, (n + 1) * 100), next };
  };
}

const plan = (extra: Partial<PassPlan> = {}): PassPlan => ({ order: 'listed', signal: new AbortController().signal, ...extra });

async function take(source: AsyncGenerator<PassItem>, n = Number.POSITIVE_INFINITY): Promise<PassItem[]> {
  const out: PassItem[] = [];
  while (out.length < n) {
    const next = await source.next();
    if (next.done) break;
    out.push(next.value);
  }
  await source.return(undefined);
  return out;
}

describe('passItems', () => {
  it('hands out the first page while a later page is still unanswered: filing starts with the first page', async () => {
    const first = Array.from({ length: 100 }, (_, i) => item(i));
    const { client, requests } = fakeClient((cursor) => (cursor === undefined ? { items: first, next: 'p1' } : 'never'));
    const got = await take(passItems(client, new Map(), plan()), 100);
    expect(got.map((g) => g.id)).toEqual(first.map((f) => f.id));
    expect(got[0]).toEqual({ from: 'listing', id: first[0]?.id, n: 1, title: 'recording 0' });
    expect(requests).toEqual([undefined, 'p1']);
  });

  it('stops listing at --max-items: one page request for 2 of 100,000', async () => {
    const { client, requests } = fakeClient((cursor) => {
      const n = cursor === undefined ? 0 : Number(cursor.slice(1));
      return { items: Array.from({ length: 100 }, (_, i) => item(n * 100 + i)), next: `p${n + 1}` };
    });
    const got = await take(passItems(client, new Map(), plan({ maxItems: 2 })));
    expect(got.map((g) => g.id)).toEqual(['rec_0000', 'rec_0001']);
    expect(requests).toEqual([undefined]);
  });

  it('files the journal answers first, counts them in --max-items, and never hands out a recording twice', async () => {
    const items = Array.from({ length: 5 }, (_, i) => item(i));
    const states = new Map<string, RecordingState>([
      ['rec_0003', { attempts: 1, result: { externalId: 'CASE-3' } }],
      ['rec_0001', { attempts: 2 }],
    ]);
    const { client } = fakeClient(paged(items));
    const got = await take(passItems(client, states, plan({ maxItems: 4 })));
    expect(got.map((g) => [g.from, g.id])).toEqual([
      ['journal', 'rec_0003'],
      ['listing', 'rec_0000'],
      ['listing', 'rec_0001'],
      ['listing', 'rec_0002'],
    ]);
  });

  it('does not list at all when the journal answers fill --max-items', async () => {
    const states = new Map<string, RecordingState>([['rec_0009', { attempts: 1, result: { externalId: 'CASE-9' } }]]);
    const { client, requests } = fakeClient(paged([item(1)]));
    expect((await take(passItems(client, states, plan({ maxItems: 1 })))).map((g) => g.id)).toEqual(['rec_0009']);
    expect(requests).toEqual([]);
  });

  it('with --order priority lists every page first, then URGENT, HIGH, MEDIUM, LOW, oldest first within each', async () => {
    const levels = ['LOW', 'URGENT', 'MEDIUM', 'HIGH'] as const;
    const items = Array.from({ length: 250 }, (_, i) => item(i, levels[i % 4]));
    const { client, requests } = fakeClient(paged(items));
    const source = passItems(client, new Map(), plan({ order: 'priority', maxItems: 70 }));
    const first = await source.next();
    expect(requests).toEqual([undefined, 'p1', 'p2']);
    const got = [first.value as PassItem, ...(await take(source))];
    const rank = { URGENT: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };
    const expected = [...items].sort((a, b) => rank[a.priority] - rank[b.priority] || a.createdAt.localeCompare(b.createdAt)).slice(0, 70);
    expect(got.map((g) => g.id)).toEqual(expected.map((e) => e.id));
    // 63 URGENT (1, 5, 9, …), then HIGH from the oldest.
    expect(got[0]?.id).toBe('rec_0001');
    expect(got[63]?.id).toBe('rec_0003');
  });

  it('lists again from the start when a cursor expired mid-pass, skipping what it handed out', async () => {
    const items = Array.from({ length: 150 }, (_, i) => item(i));
    let expired = true;
    const { client, requests } = fakeClient((cursor) => {
      if (cursor === 'p1' && expired) {
        expired = false;
        return new ApiError({ status: 400, code: 'INVALID_CURSOR', title: 'Invalid or expired pagination cursor', requestId: null });
      }
      return paged(items)(cursor);
    });
    const got = await take(passItems(client, new Map(), plan()));
    expect(got.map((g) => g.id)).toEqual(items.map((i) => i.id));
    expect(requests).toEqual([undefined, 'p1', undefined, 'p1']);
  });
});
