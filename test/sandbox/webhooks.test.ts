import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookCreateResponse } from '../../src/shared/schemas.js';
import { start, type Harness } from './helpers.js';

let h: Harness;
let offset = 0;
let frozen: number | null = null;
let n = 0;
beforeAll(async () => {
  h = await start({ rateLimit: 0, now: () => (frozen ?? Date.now()) + offset });
});
afterAll(() => h.close());
afterEach(async () => {
  // Each test starts with no subscriptions.
  offset = 0;
  frozen = null;
  expect((await h.control('/reset', {})).status).toBe(204);
});

const URL_OK = 'http://127.0.0.1:9/hook';
const idem = (): string => `test-key-${++n}-${Date.now()}`;
const create = (body: unknown, key: string | null = idem(), apiKey?: string) =>
  h.api('/webhooks', { body, headers: key === null ? {} : { 'idempotency-key': key }, ...(apiKey ? { key: apiKey } : {}) });

describe('POST /webhooks', () => {
  it('creates a subscription: 201 with id, url, events, a whsec_ secret and createdAt', async () => {
    const res = await create({ url: URL_OK, events: ['recording.completed'] });
    expect(res.status).toBe(201);
    expect(WebhookCreateResponse.safeParse(res.json).success).toBe(true);
    expect(res.json.data).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: URL_OK,
      events: ['recording.completed'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
      createdAt: expect.any(String),
    });
  });

  it.each([
    ['no key', null],
    ['a short key', 'abc1234'],
    ['a key with a space', 'abc 12345'],
    ['a key with a slash', 'abcd/12345'],
    ['a key of 256 characters', 'k'.repeat(256)],
  ])('answers 400 IDEMPOTENCY_KEY_REQUIRED for %s', async (_name, key) => {
    const res = await create({ url: URL_OK, events: ['recording.completed'] }, key);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('accepts keys of 8 and 255 characters from the allowed alphabet', async () => {
    expect((await create({ url: URL_OK, events: ['recording.completed'] }, 'aZ0._:-x')).status).toBe(201);
    expect((await create({ url: URL_OK, events: ['recording.completed'] }, 'k'.repeat(255))).status).toBe(201);
  });

  it('answers a repeated key with the original subscription, secret and status included', async () => {
    const key = idem();
    const first = await create({ url: URL_OK, events: ['recording.completed'] }, key);
    const again = await create({ url: 'http://127.0.0.1:10/other', events: ['recording.completed'] }, key);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect((await h.api('/webhooks')).json.data).toHaveLength(1);
  });

  it('keeps keys per workspace', async () => {
    const key = idem();
    const main = await create({ url: URL_OK, events: ['recording.completed'] }, key);
    const other = await create({ url: URL_OK, events: ['recording.completed'] }, key, h.keys.otherWorkspace);
    expect(other.status).toBe(201);
    expect(other.json.data.id).not.toBe(main.json.data.id);
  });

  it('makes one subscription of concurrent requests with one key, even while DNS is slow', async () => {
    const slow = await start({
      rateLimit: 0,
      resolveHost: async (host) => {
        await new Promise((r) => setTimeout(r, 100));
        if (host !== 'hooks.example') throw new Error('ENOTFOUND');
        return ['93.184.216.34'];
      },
    });
    try {
      const key = idem();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          slow.api('/webhooks', {
            body: { url: 'https://hooks.example/x', events: ['recording.completed'] },
            headers: { 'idempotency-key': key },
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
      expect(new Set(answers.map((a) => a.json.data.id)).size).toBe(1);
      expect(new Set(answers.map((a) => a.json.data.secret)).size).toBe(1);
      expect((await slow.api('/webhooks')).json.data).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('frees a key whose request failed, so that a corrected retry can succeed', async () => {
    const key = idem();
    expect((await create({ url: 'http://10.0.0.1/x', events: ['recording.completed'] }, key)).status).toBe(400);
    expect((await create({ url: URL_OK, events: ['recording.completed'] }, key)).status).toBe(201);
  });

  it('forgets keys after 24 hours', async () => {
    const key = idem();
    const first = await create({ url: URL_OK, events: ['recording.completed'] }, key);
    offset = 24 * 60 * 60 * 1000 + 1000;
    const later = await create({ url: URL_OK, events: ['recording.completed'] }, key);
    expect(later.status).toBe(201);
    expect(later.json.data.id).not.toBe(first.json.data.id);
  });

  it.each([
    ['no events', { url: URL_OK, events: [] }],
    ['an unknown event', { url: URL_OK, events: ['recording.deleted'] }],
    ['no url', { events: ['recording.completed'] }],
    ['a url that is not a URL', { url: 'not a url', events: ['recording.completed'] }],
    ['an unknown field', { url: URL_OK, events: ['recording.completed'], secret: 'mine' }],
  ])('answers 400 INVALID_INPUT for %s', async (_name, body) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_INPUT');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await h.api('/webhooks', {
      body: 'url=x',
      headers: { 'idempotency-key': idem(), 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
  });

  it('allows 50 subscriptions per workspace, then answers 409, and again after a delete', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await create({ url: `${URL_OK}/${i}`, events: ['recording.completed'] });
      expect(res.status).toBe(201);
      ids.push(res.json.data.id);
    }
    const over = await create({ url: URL_OK, events: ['recording.completed'] });
    expect(over.status).toBe(409);
    expect(over.json.code).toBe('WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED');
    // Another workspace has its own limit.
    expect((await create({ url: URL_OK, events: ['recording.completed'] }, idem(), h.keys.otherWorkspace)).status).toBe(201);
    expect((await h.api(`/webhooks/${ids[0]}`, { method: 'DELETE' })).status).toBe(204);
    expect((await create({ url: URL_OK, events: ['recording.completed'] })).status).toBe(201);
  });
});

describe('GET /webhooks', () => {
  /** Every subscription id, following the cursor `limit` at a time. */
  async function walkPages(limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await h.api(`/webhooks?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.json.data.map((s: { id: string }) => s.id));
      cursor = res.json.meta.nextCursor;
    } while (cursor);
    return seen;
  }

  it('pages with a cursor, 50 by default and at most', async () => {
    for (let i = 0; i < 23; i++) await create({ url: `${URL_OK}/${i}`, events: ['recording.completed'] });
    const all = await h.api('/webhooks');
    expect(all.json.meta).toEqual({ count: 23, limit: 50, hasMore: false, nextCursor: null });
    expect(all.json.data[0]).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: `${URL_OK}/0`,
      events: ['recording.completed'],
      createdAt: expect.any(String),
    });
    expect(all.json.data[0]).not.toHaveProperty('secret');
    expect(await walkPages(10)).toEqual(all.json.data.map((s: { id: string }) => s.id));
    for (const q of ['limit=51', 'limit=0', 'cursor=nope', 'status=x']) {
      expect((await h.api(`/webhooks?${q}`)).status, q).toBe(400);
    }
  });

  it('lists subscriptions made in the same millisecond in the order they were made, across pages', async () => {
    frozen = Date.now();
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await create({ url: `${URL_OK}/${i}`, events: ['recording.completed'] })).json.data.id);
    expect(await walkPages(5)).toEqual(made);
  });

  it('shows only the workspace’s own subscriptions', async () => {
    await create({ url: URL_OK, events: ['recording.completed'] });
    expect((await h.api('/webhooks', { key: h.keys.otherWorkspace })).json.data).toEqual([]);
  });
});

describe('DELETE /webhooks/:id', () => {
  it('answers 204 with no body, then 404; another workspace cannot delete it', async () => {
    const id = (await create({ url: URL_OK, events: ['recording.completed'] })).json.data.id as string;
    const foreign = await h.api(`/webhooks/${id}`, { method: 'DELETE', key: h.keys.otherWorkspace });
    expect(foreign.status).toBe(404);
    const res = await h.api(`/webhooks/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await h.api(`/webhooks/${id}`, { method: 'DELETE' })).json.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('webhook request order', () => {
  it('answers 415 for a body that is not JSON even without an Idempotency-Key', async () => {
    const h = await start();
    try {
      const res = await h.api('/webhooks', { method: 'POST', body: 'url=x', headers: { 'content-type': 'text/plain' } });
      expect(res.status).toBe(415);
      expect(res.json.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    } finally {
      await h.close();
    }
  });
});
