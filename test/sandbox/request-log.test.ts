import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/sandbox/request-log.js';
import { start, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await start({ rateLimit: 0 });
});
afterAll(() => h.close());
beforeEach(async () => {
  expect((await h.control('/requests', undefined, 'DELETE')).status).toBe(204);
});

describe('GET /_sandbox/health', () => {
  it('answers 200 {"status":"ok"} once the sandbox serves', async () => {
    const res = await h.control('/health');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":"ok"}');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('the request log', () => {
  it('lists the /api/v1 requests answered, oldest first, with key name, status, code and request id', async () => {
    const list = await h.api('/recordings?limit=2');
    const missing = await h.api('/recordings/rec_none', { key: h.keys.readOnly });
    const unauthorized = await h.api('/recordings', { key: 'rfs_not-a-key' });
    await h.control('/stats'); // the control API is not logged
    const res = await h.control('/requests');
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(3);
    const [first, second, third] = res.json.data;
    expect(first).toEqual({
      seq: expect.any(Number),
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      method: 'GET',
      path: '/api/v1/recordings',
      query: 'limit=2',
      key: 'admin',
      status: 200,
      code: null,
      requestId: list.headers.get('x-request-id'),
      fault: null,
    });
    expect(second).toMatchObject({
      path: '/api/v1/recordings/rec_none',
      query: '',
      key: 'readOnly',
      status: 404,
      code: 'RESOURCE_NOT_FOUND',
      requestId: missing.headers.get('x-request-id'),
    });
    expect(third).toMatchObject({ key: null, status: 401, code: 'UNAUTHORIZED', requestId: unauthorized.headers.get('x-request-id') });
    expect(second.seq).toBe(first.seq + 1);
    expect(third.seq).toBe(first.seq + 2);
    expect(res.json.meta).toEqual({ count: 3, lastSeq: third.seq });
  });

  it('logs unknown /api/v1 paths and filings with their method', async () => {
    await h.api('/nothing-here');
    const id = (await h.api('/recordings?limit=1')).json.data[0].id;
    await h.api(`/recordings/${id}/filings`, { body: { provider: 'log-test', externalId: 'L-1' } });
    const data = (await h.control('/requests')).json.data;
    expect(data.map((r: { method: string; status: number; code: string | null }) => [r.method, r.status, r.code])).toEqual([
      ['GET', 404, 'RESOURCE_NOT_FOUND'],
      ['GET', 200, null],
      ['POST', 200, null],
    ]);
  });

  it('?since=<seq> lists only what came after; DELETE clears it, and seq carries on', async () => {
    await h.api('/recordings');
    const mark = (await h.control('/requests')).json.meta.lastSeq as number;
    await h.api('/recordings?limit=1');
    await h.api('/recordings?limit=3');
    const after = (await h.control(`/requests?since=${mark}`)).json.data;
    expect(after.map((r: { query: string }) => r.query)).toEqual(['limit=1', 'limit=3']);
    expect((await h.control('/requests', undefined, 'DELETE')).status).toBe(204);
    expect((await h.control('/requests')).json.data).toEqual([]);
    await h.api('/recordings');
    const next = (await h.control('/requests')).json.data;
    expect(next).toHaveLength(1);
    expect(next[0].seq).toBe(mark + 3);
  });

  it('refuses a since that is not a number, naming it', async () => {
    const res = await h.control('/requests?since=yesterday');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_INPUT', path: 'since' });
    expect((await h.control('/requests?what=1')).status).toBe(400);
  });
});

describe('RequestLog', () => {
  it('keeps only the last entries when full, oldest first', () => {
    const log = new RequestLog(3);
    const entry = {
      time: 't',
      method: 'GET',
      path: '/api/v1/recordings',
      query: '',
      key: null,
      status: 200,
      code: null,
      requestId: 'r',
      fault: null,
    };
    for (let i = 0; i < 5; i++) log.add({ ...entry, requestId: `r${i}` });
    expect(log.since().map((e) => [e.seq, e.requestId])).toEqual([
      [3, 'r2'],
      [4, 'r3'],
      [5, 'r4'],
    ]);
    expect(log.since(4).map((e) => e.seq)).toEqual([5]);
    expect(log.since(1).map((e) => e.seq)).toEqual([3, 4, 5]);
    log.clear();
    expect(log.since()).toEqual([]);
    log.add(entry);
    expect(log.since().map((e) => e.seq)).toEqual([6]);
  });

  it('holds 10,000 by default', async () => {
    const log = new RequestLog();
    const entry = { time: 't', method: 'GET', path: '/p', query: '', key: null, status: 200, code: null, requestId: 'r', fault: null };
    for (let i = 0; i < 10_005; i++) log.add(entry);
    const all = log.since();
    expect(all).toHaveLength(10_000);
    expect(all[0]?.seq).toBe(6);
    expect(all[9_999]?.seq).toBe(10_005);
  });
});

// 10,000 requests with 15 KB URLs took the sandbox from 70 MB to 682 MB, and
// a key put in a query string was kept and handed out as sent.
describe('a request log entry', () => {
  it('keeps at most 1024 characters of a path and of a query, cut with a marker', async () => {
    const long = 'x'.repeat(7000); // both within the 16 KiB head node accepts
    await h.api(`/recordings/rec_${long}?title=${long}`);
    const [entry] = (await h.control('/requests')).json.data;
    for (const field of ['path', 'query'] as const) {
      expect(entry[field].length).toBeLessThanOrEqual(1024);
      expect(entry[field]).toMatch(/…\[cut: 70\d\d characters in all\]$/);
    }
    expect(entry.path.startsWith('/api/v1/recordings/rec_xxx')).toBe(true);
    expect(entry.query.startsWith('title=xxx')).toBe(true);
    expect(JSON.stringify(entry).length).toBeLessThan(3000);
  });

  it('redacts what looks like a key or a secret in a query string or a path', async () => {
    const key = h.keys.admin;
    await h.api(`/recordings?api_key=${key}&note=${key}&hook=whsec_abcdefABCDEF0123456789abcdefABCD&limit=1`);
    await h.api(`/recordings/${key}`);
    const text = (await h.control('/requests')).text;
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice('service_pk_'.length, -4));
    expect(text).not.toContain('abcdefABCDEF');
    const [withQuery, withPath] = JSON.parse(text).data;
    expect(withQuery.query).toBe(`api_key=…&note=service_pk_…${key.slice(-4)}&hook=whsec_…&limit=1`);
    expect(withPath.path).toBe(`/api/v1/recordings/service_pk_…${key.slice(-4)}`);
  });
});
