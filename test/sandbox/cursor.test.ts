import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Harness } from './helpers.js';

let h: Harness;
let offset = 0;
beforeAll(async () => {
  // A clock the tests can move, for cursor expiry.
  h = await start({ rateLimit: 0, recordings: 60, now: () => Date.now() + offset });
});
afterAll(() => h.close());

async function firstCursor(query = ''): Promise<string> {
  const res = await h.api(`/recordings?limit=2${query}`);
  expect(res.json.meta.hasMore).toBe(true);
  return res.json.meta.nextCursor as string;
}

describe('cursors', () => {
  it('walks every page exactly once and ends with hasMore false and a null cursor', async () => {
    const whole = (await h.api('/recordings?syncState=all&limit=100')).json.data.map((r: { id: string }) => r.id);
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h.api(`/recordings?syncState=all&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.json.meta.count).toBe(res.json.data.length);
      walked.push(...res.json.data.map((r: { id: string }) => r.id));
      cursor = res.json.meta.nextCursor;
      expect(res.json.meta.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(walked).toEqual(whole);
    expect(pages).toBe(Math.ceil(whole.length / 7));
  });

  it('is opaque base64url', async () => {
    expect(await firstCursor()).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('may be used with another limit', async () => {
    const cursor = await firstCursor();
    const res = await h.api(`/recordings?limit=5&cursor=${cursor}`);
    expect(res.status).toBe(200);
  });

  it('refuses a tampered cursor', async () => {
    const cursor = await firstCursor();
    for (const i of [0, 5, Math.floor(cursor.length / 2), cursor.length - 1]) {
      const c = cursor[i] === 'A' ? 'B' : 'A';
      const tampered = cursor.slice(0, i) + c + cursor.slice(i + 1);
      const res = await h.api(`/recordings?limit=2&cursor=${tampered}`);
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('INVALID_CURSOR');
      expect(res.json.type).toBe('https://sandbox.rfs.invalid/problems/invalid-cursor');
    }
  });

  it.each(['garbage', '', '%%%', 'AAAA', 'x'.repeat(600)])('refuses the made-up cursor %j', async (cursor) => {
    const res = await h.api(`/recordings?cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_CURSOR');
  });

  it('refuses a cursor sent with another query', async () => {
    const cursor = await firstCursor();
    for (const query of ['status=ARCHIVED', 'syncState=all', 'include=content', 'updatedSince=2020-01-01T00:00:00Z']) {
      const res = await h.api(`/recordings?${query}&cursor=${cursor}`);
      expect(res.json.code, query).toBe('INVALID_CURSOR');
    }
    const webhooks = await h.api(`/webhooks?cursor=${cursor}`);
    expect(webhooks.json.code).toBe('INVALID_CURSOR');
  });

  it('refuses a cursor from another workspace', async () => {
    const cursor = await firstCursor();
    const res = await h.api(`/recordings?limit=2&cursor=${cursor}`, { key: h.keys.otherWorkspace });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_CURSOR');
  });

  it('expires after one hour', async () => {
    const cursor = await firstCursor();
    offset = 59 * 60 * 1000;
    expect((await h.api(`/recordings?limit=2&cursor=${cursor}`)).status).toBe(200);
    offset = 60 * 60 * 1000 + 1000;
    const res = await h.api(`/recordings?limit=2&cursor=${cursor}`);
    offset = 0;
    expect(res.json.code).toBe('INVALID_CURSOR');
  });

  it('sees every unsynced recording exactly once while each is filed during the walk', async () => {
    const before = (await h.api('/recordings?limit=100')).json.data.map((r: { id: string }) => r.id) as string[];
    expect(before.length).toBeGreaterThan(20);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await h.api(`/recordings?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      for (const item of res.json.data as { id: string }[]) {
        seen.push(item.id);
        const filing = await h.api(`/recordings/${item.id}/filings`, { body: { provider: 'walk', externalId: `ext-${item.id}` } });
        expect(filing.status).toBe(200);
      }
      cursor = res.json.meta.nextCursor;
    } while (cursor);
    expect(seen).toEqual(before);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await h.api('/recordings')).json.data).toEqual([]);
  });
});
