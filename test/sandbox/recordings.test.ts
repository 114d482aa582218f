import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDING_STATUSES } from '../../src/shared/schemas.js';
import { RecordingDetail, RecordingList } from '../../src/shared/schemas.js';
import { start, type Harness } from './helpers.js';

interface Block {
  id: string;
  sortOrder: number;
  contentText?: string | null;
  contentStatus?: string;
  contentJson?: { type: string; content: { type: string; content?: { text?: string }[] }[] };
}
interface Item {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  syncCount: number;
  client: unknown;
  matter: unknown;
  notes: Block[];
  documents: Block[];
  transcript?: string;
}

let h: Harness;
beforeAll(async () => {
  h = await start({ rateLimit: 0 });
});
afterAll(() => h.close());

async function all(query: string, key = h.keys.admin): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const res = await h.api(`/recordings?${query}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(res.status).toBe(200);
    items.push(...(res.json.data as Item[]));
    cursor = res.json.meta.nextCursor as string | null;
  } while (cursor);
  return items;
}

describe('GET /recordings', () => {
  it('lists COMPLETED, unsynced recordings by default, 50 at most, in the shape of api.md', async () => {
    const res = await h.api('/recordings');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(RecordingList.safeParse(res.json).success).toBe(true);
    expect(res.json.meta.limit).toBe(50);
    expect(res.json.meta.count).toBe(res.json.data.length);
    expect(res.json.meta.hasMore).toBe(false);
    expect(res.json.meta.nextCursor).toBeNull();
    for (const item of res.json.data as Item[]) {
      expect(item.status).toBe('COMPLETED');
      expect(item.syncCount).toBe(0);
    }
  });

  it('orders recordings by (createdAt, id)', async () => {
    const items = await all('syncState=all');
    const keys = items.map((i) => [Date.parse(i.createdAt), i.id] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    expect(keys).toEqual(sorted);
  });

  it('generates at least 60 % COMPLETED and unsynced, and every other status too', async () => {
    let total = 0;
    const seen = new Set<string>();
    for (const status of RECORDING_STATUSES) {
      const items = await all(`status=${status}&syncState=all`);
      total += items.length;
      if (items.length > 0) seen.add(status);
    }
    const unsynced = await all('status=COMPLETED&syncState=unsynced');
    expect(total).toBe(25);
    expect(unsynced.length / total).toBeGreaterThanOrEqual(0.6);
    expect([...seen].sort()).toEqual([...RECORDING_STATUSES].sort());
    expect((await all('syncState=synced')).length).toBeGreaterThan(0);
  });

  it('omits block content and the transcript without include', async () => {
    const items = (await h.api('/recordings')).json.data as Item[];
    const blocks = items.flatMap((i) => [...i.notes, ...i.documents]);
    expect(blocks.length).toBeGreaterThan(0);
    for (const item of items) expect(item).not.toHaveProperty('transcript');
    for (const b of blocks) {
      expect(b).not.toHaveProperty('contentText');
      expect(b).not.toHaveProperty('contentStatus');
      expect(b).not.toHaveProperty('contentJson');
    }
  });

  it('adds contentText and contentStatus with include=content, and contentJson only with include=contentJson', async () => {
    const content = (await all('syncState=all&status=COMPLETED&include=content')).flatMap((i) => [...i.notes, ...i.documents]);
    expect(content.every((b) => 'contentText' in b && 'contentStatus' in b && !('contentJson' in b))).toBe(true);
    const json = (await all('syncState=all&status=COMPLETED&include=contentJson')).flatMap((i) => [...i.notes, ...i.documents]);
    const available = json.filter((b) => b.contentStatus === 'available');
    const unavailable = json.filter((b) => b.contentStatus === 'unavailable');
    expect(available.length).toBeGreaterThan(0);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const b of available) {
      expect(b.contentJson?.type).toBe('doc');
      expect(typeof b.contentText).toBe('string');
    }
    for (const b of unavailable) {
      expect(b.contentText).toBeNull();
      expect(b).not.toHaveProperty('contentJson');
    }
  });

  it('derives contentText from contentJson (every heading and paragraph text appears in it)', async () => {
    const blocks = (await all('syncState=all&include=contentJson'))
      .flatMap((i) => [...i.notes, ...i.documents])
      .filter((b) => b.contentJson);
    const types = new Set<string>();
    for (const b of blocks) {
      for (const node of b.contentJson?.content ?? []) {
        types.add(node.type);
        if (node.type === 'heading' || node.type === 'paragraph') {
          const text = (node.content ?? []).map((t) => t.text ?? '').join('');
          expect(b.contentText).toContain(text);
        }
      }
    }
    expect(types).toEqual(new Set(['heading', 'paragraph', 'bulletList', 'orderedList']));
  });

  it('keeps notes and documents at 50 blocks or fewer, and leaves client and matter null on some', async () => {
    const items = await all('syncState=all');
    for (const i of items) expect(i.notes.length + i.documents.length).toBeLessThanOrEqual(50);
    expect(items.some((i) => i.client === null)).toBe(true);
    expect(items.some((i) => i.client !== null && i.matter !== null)).toBe(true);
  });

  it('keeps recordings updated at or after updatedSince', async () => {
    const items = await all('syncState=all');
    const times = items.map((i) => Date.parse(i.updatedAt)).sort((a, b) => a - b);
    const middle = times[Math.floor(times.length / 2)] as number;
    const since = await all(`syncState=all&updatedSince=${encodeURIComponent(new Date(middle).toISOString())}`);
    expect(since.length).toBe(times.filter((t) => t >= middle).length);
    expect(since.every((i) => Date.parse(i.updatedAt) >= middle)).toBe(true);
    expect(await all('syncState=all&updatedSince=2999-01-01T00:00:00Z')).toEqual([]);
  });

  it.each([
    ['status=DONE'],
    ['status=completed'],
    ['status='],
    ['syncState=maybe'],
    ['include=everything'],
    ['limit=0'],
    ['limit=101'],
    ['limit=1.5'],
    ['limit=ten'],
    ['limit=-1'],
    ['limit='],
    ['updatedSince=yesterday'],
    ['updatedSince=2025-01-01T00:00:00'],
    ['updatedSince=2025-13-45T00:00:00Z'],
    ['updatedSince=2025-02-30T00:00:00Z'],
    ['updatedSince=2023-02-29'],
    ['status=COMPLETED&status=DRAFT'],
    ['limit=5&limit=5'],
    ['sync_state=all'],
  ])('answers 400 INVALID_INPUT for %s', async (query) => {
    const res = await h.api(`/recordings?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_INPUT');
    expect(res.json.type).toBe('https://sandbox.rfs.invalid/problems/invalid-input');
  });

  it('accepts limit 1 and 100 and a date-time with an offset', async () => {
    expect((await h.api('/recordings?limit=1')).json.data).toHaveLength(1);
    expect((await h.api('/recordings?limit=100')).status).toBe(200);
    expect((await h.api('/recordings?updatedSince=2025-01-01T02:00:00%2B02:00')).status).toBe(200);
  });
});

describe('GET /recordings/:id', () => {
  it('always has the transcript and block text, and contentJson only on request', async () => {
    const id = (await h.api('/recordings')).json.data[0].id as string;
    const res = await h.api(`/recordings/${id}`);
    expect(res.status).toBe(200);
    expect(RecordingDetail.safeParse(res.json.data).success).toBe(true);
    const detail = res.json.data as Item;
    expect(detail.transcript?.split('\n\n').length).toBeGreaterThanOrEqual(3);
    const blocks = [...detail.notes, ...detail.documents];
    expect(blocks.every((b) => 'contentText' in b && 'contentStatus' in b && !('contentJson' in b))).toBe(true);
    const withJson = (await h.api(`/recordings/${id}?include=contentJson`)).json.data as Item;
    expect([...withJson.notes, ...withJson.documents].some((b) => b.contentJson !== undefined)).toBe(true);
  });

  it('answers 404 for an id that does not exist and 400 for an unknown include', async () => {
    const missing = await h.api('/recordings/rec_doesNotExist');
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('RESOURCE_NOT_FOUND');
    const id = (await h.api('/recordings')).json.data[0].id as string;
    expect((await h.api(`/recordings/${id}?include=all`)).json.code).toBe('INVALID_INPUT');
  });

  it('serves the same content on every request', async () => {
    const id = (await h.api('/recordings')).json.data[1].id as string;
    const a = await h.api(`/recordings/${id}?include=contentJson`);
    const b = await h.api(`/recordings/${id}?include=contentJson`);
    expect(a.text).toBe(b.text);
  });
});

describe('seeding', () => {
  it('gives the same keys and data for the same seed, and others for another seed', async () => {
    const same = await start({ seed: 'test-seed' });
    const other = await start({ seed: 'another-seed' });
    try {
      expect(same.keys).toEqual(h.keys);
      expect((await same.api('/recordings')).json.data).toEqual((await h.api('/recordings')).json.data);
      expect(other.keys.admin).not.toBe(h.keys.admin);
      expect((await other.api('/recordings')).json.data[0].id).not.toBe((await h.api('/recordings')).json.data[0].id);
      for (const key of Object.values(h.keys)) expect(key).toMatch(/^service_pk_[A-Za-z0-9]{32}$/);
    } finally {
      await same.close();
      await other.close();
    }
  });
});
