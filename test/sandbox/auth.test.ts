import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, start, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await start();
});
afterAll(() => h.close());

const PROBLEM = 'https://sandbox.rfs.invalid/problems/';

describe('authentication', () => {
  it('answers 401 UNAUTHORIZED as problem details when the key is missing', async () => {
    const res = await h.api('/recordings', { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json).toEqual({
      type: `${PROBLEM}unauthorized`,
      title: expect.any(String),
      status: 401,
      code: 'UNAUTHORIZED',
      requestId: res.headers.get('x-request-id'),
    });
  });

  it.each([
    ['an unknown key', { authorization: 'Bearer service_pk_notARealKey0000000000000000000000' }],
    ['a key without the Bearer scheme', { authorization: 'service_pk_whatever' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('answers 401 for %s', async (_name, headers) => {
    const res = await h.api('/recordings', { key: null, headers });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
  });

  it('answers 401 for a revoked key, which has every scope', async () => {
    const res = await h.api('/recordings', { key: h.keys.revoked });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 SUBSCRIPTION_REQUIRED for the starter workspace on every endpoint', async () => {
    const calls = [
      h.api('/recordings', { key: h.keys.noSubscription }),
      h.api('/recordings/rec_x', { key: h.keys.noSubscription }),
      h.api('/recordings/rec_x/filings', { key: h.keys.noSubscription, body: { provider: 'p', externalId: 'x' } }),
      h.api('/webhooks', { key: h.keys.noSubscription }),
      h.api('/webhooks/deliveries', { key: h.keys.noSubscription }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('SUBSCRIPTION_REQUIRED');
      expect(res.json.type).toBe(`${PROBLEM}subscription-required`);
    }
  });

  it('gives every response a distinct x-request-id', async () => {
    const answers = await Promise.all([h.api('/recordings'), h.api('/recordings', { key: null }), h.api('/nowhere')]);
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9]+$/);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('scopes', () => {
  it('lets read:recordings list and fetch but not file or manage webhooks', async () => {
    const list = await h.api('/recordings?limit=1', { key: h.keys.readOnly });
    expect(list.status).toBe(200);
    const id = list.json.data[0].id as string;
    expect((await h.api(`/recordings/${id}`, { key: h.keys.readOnly })).status).toBe(200);
    const filing = await h.api(`/recordings/${id}/filings`, { key: h.keys.readOnly, body: { provider: 'p', externalId: 'x' } });
    expect(filing.status).toBe(403);
    expect(filing.json.code).toBe('INSUFFICIENT_SCOPE');
    // api.md: no field-level details in answers; the sandbox says what was wrong in its log.
    expect(filing.json.detail).toBeUndefined();
    expect(h.logs.some((l) => l.includes(filing.json.requestId) && l.includes('write:recordings'))).toBe(true);
    const hooks = await h.api('/webhooks', { key: h.keys.readOnly });
    expect(hooks.json.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('lets write:recordings file but not list', async () => {
    const id = (await h.api('/recordings?limit=1')).json.data[0].id as string;
    expect((await h.api('/recordings', { key: h.keys.writeOnly })).json.code).toBe('INSUFFICIENT_SCOPE');
    const filing = await h.api(`/recordings/${id}/filings`, { key: h.keys.writeOnly, body: { provider: 'scope-test', externalId: 'w-1' } });
    expect(filing.status).toBe(200);
  });

  it('lets manage:webhooks manage webhooks and deliveries only', async () => {
    expect((await h.api('/webhooks', { key: h.keys.webhooks })).status).toBe(200);
    expect((await h.api('/webhooks/deliveries', { key: h.keys.webhooks })).status).toBe(200);
    expect((await h.api('/recordings', { key: h.keys.webhooks })).json.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('order of checks', () => {
  it('answers an unknown path 404 before looking at the key', async () => {
    const res = await h.api('/recordingz', { key: null });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('checks the key before the query parameters', async () => {
    expect((await h.api('/recordings?limit=0', { key: null })).status).toBe(401);
  });

  it('checks the scope before the body', async () => {
    const res = await h.api('/recordings/rec_x/filings', {
      key: h.keys.readOnly,
      body: 'not json',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.json.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('answers a known path with a method it does not serve 404', async () => {
    expect((await h.api('/recordings', { method: 'PUT', body: {} })).status).toBe(404);
    expect((await h.api('/recordings', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('workspace isolation', () => {
  it('never shows one workspace the recordings of another', async () => {
    const main = (await h.api('/recordings?syncState=all&limit=100')).json.data.map((r: { id: string }) => r.id);
    const other = (await h.api('/recordings?syncState=all&limit=100', { key: h.keys.otherWorkspace })).json.data.map(
      (r: { id: string }) => r.id,
    );
    expect(main.length).toBeGreaterThan(0);
    expect(other.length).toBeGreaterThan(0);
    expect(main.filter((id: string) => other.includes(id))).toEqual([]);
  });

  it('answers 404 for another workspace’s recording, on read and on filing', async () => {
    const id = (await h.api('/recordings?limit=1')).json.data[0].id as string;
    const read = await h.api(`/recordings/${id}`, { key: h.keys.otherWorkspace });
    expect(read.status).toBe(404);
    expect(read.json.code).toBe('RESOURCE_NOT_FOUND');
    const filing = await h.api(`/recordings/${id}/filings`, { key: h.keys.otherWorkspace, body: { provider: 'p', externalId: 'x' } });
    expect(filing.status).toBe(404);
    const after = await h.api(`/recordings/${id}`);
    expect(after.json.data.syncCount).toBe(0);
  });
});

describe('paths', () => {
  const key = (): Record<string, string> => ({ authorization: `Bearer ${h.keys.admin}` });

  it.each([
    '/api/v1/recordings/..%2F..%2Fwebhooks',
    '/api/v1/recordings/%2E%2E',
    '/api/v1/recordings/rec%2Fx',
    '/api/v1/recordings/rec%3Fx',
    '/api/v1/recordings/rec%23x',
    '/api/v1/recordings/%E0%A4%A',
    '/api/v1/recordings/../webhooks',
    '/api/v1//recordings',
    '/api/v1/recordings/',
  ])('answers %s with 404, never another route', async (path) => {
    const res = await rawRequest(h.base, path, key());
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).code).toBe('RESOURCE_NOT_FOUND');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('decodes a percent-encoded id of a real recording', async () => {
    const id = (await h.api('/recordings?limit=1')).json.data[0].id as string;
    const encoded = [...id].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const res = await rawRequest(h.base, `/api/v1/recordings/${encoded}`, key());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.id).toBe(id);
  });
});
