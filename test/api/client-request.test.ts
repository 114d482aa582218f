import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { apiPath } from '../../src/api/types.js';
import { UsageError, exitCodeFor } from '../../src/core/errors.js';
import { KEY, rejection, useScenario } from './support.js';

const scenario = useScenario();

describe('what is sent', () => {
  it.each([
    ['a/b', '/api/v1/recordings/a%2Fb'],
    ['..', '/api/v1/recordings/%2E%2E'],
    ['x?y=1#z', '/api/v1/recordings/x%3Fy%3D1%23z'],
    ['50%', '/api/v1/recordings/50%25'],
    ['../../webhooks', '/api/v1/recordings/%2E%2E%2F%2E%2E%2Fwebhooks'],
  ])('keeps the id %j inside one path segment', async (id, raw) => {
    scenario.server.queue({ expect: { method: 'GET', url: raw }, body: {} });
    await scenario.client().request({ method: 'GET', path: apiPath('recordings', id), schema: null });
    expect(scenario.server.requests[0]?.url).toBe(raw);
  });

  it('sends an encoded dot segment as given, never normalised', async () => {
    scenario.server.queue({ body: {} });
    await scenario.client().request({ method: 'POST', path: '/recordings/%2E%2E/filings', body: {}, schema: null });
    expect(scenario.server.requests[0]?.url).toBe('/api/v1/recordings/%2E%2E/filings');
  });

  it('keeps a path prefix of the base URL, and accepts a base URL that already ends in /api/v1', async () => {
    scenario.server.queue({ body: {} }, { body: {} });
    const prefixed = scenario.client({ baseUrl: `${scenario.server.url}/svc/` });
    const full = scenario.client({ baseUrl: `${scenario.server.url}/api/v1/` });
    await prefixed.request({ method: 'GET', path: '/recordings', schema: null });
    await full.request({ method: 'GET', path: '/recordings', schema: null });
    expect(scenario.server.requests.map((r) => r.url)).toEqual(['/svc/api/v1/recordings', '/api/v1/recordings']);
    expect(prefixed.baseUrl).toBe(`${scenario.server.url}/svc`);
    expect(full.baseUrl).toBe(scenario.server.url);
  });

  it('adds the query with URLSearchParams encoding, leaving out undefined values', async () => {
    scenario.server.queue({ body: {} });
    await scenario.client().request({
      method: 'GET',
      path: '/recordings',
      query: { status: 'COMPLETED', cursor: 'a b&c=d/é', updatedSince: undefined, limit: 100, all: false },
      schema: null,
    });
    expect(scenario.server.requests[0]?.url).toBe('/api/v1/recordings?status=COMPLETED&cursor=a+b%26c%3Dd%2F%C3%A9&limit=100&all=false');
  });

  it('sends the key as a bearer token, JSON headers and the user agent', async () => {
    scenario.server.queue({ body: {} }, { body: {} });
    const client = scenario.client();
    await client.request({ method: 'GET', path: '/recordings', schema: null });
    await client.request({ method: 'POST', path: '/recordings/r1/filings', body: { provider: 'p', externalId: 'x' }, schema: null });
    const [get, post] = scenario.server.requests;

    expect(get?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(get?.headers.accept).toBe('application/json');
    expect(get?.headers['user-agent']).toBe(`rfs/${RFS_VERSION} node/${process.versions.node}`);
    expect(get?.headers['content-type']).toBeUndefined();
    expect(get?.body).toBe('');
    expect(post?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post?.body ?? '')).toEqual({ provider: 'p', externalId: 'x' });
  });

  it('lets callers add headers but never replace the Authorization header', async () => {
    scenario.server.queue({ body: {} });
    await scenario.client({ userAgent: 'custom/1' }).request({
      method: 'GET',
      path: '/recordings',
      headers: { Authorization: 'Bearer other', 'X-Extra': 'yes' },
      schema: null,
    });
    const sent = scenario.server.requests[0];
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.headers['x-extra']).toBe('yes');
    expect(sent?.headers['user-agent']).toBe('custom/1');
  });

  it('returns the status, request id, headers and attempt count', async () => {
    scenario.server.queue({ status: 201, headers: { 'x-request-id': 'req_777', 'x-beta': '1' }, body: { a: 1 } });
    const res = await scenario.client().request({ method: 'POST', path: '/webhooks', body: {}, schema: null });
    expect(res).toMatchObject({ status: 201, requestId: 'req_777', attempts: 1, data: { a: 1 } });
    expect(res.headers['x-beta']).toBe('1');
  });

  it('exposes the base URL and only a redacted key', () => {
    const client = scenario.client();
    expect(client.baseUrl).toBe(scenario.server.url);
    expect(client.redactedKey).toBe('service_pk_…WXYZ');
  });

  it('refuses to send after close()', async () => {
    const client = scenario.client();
    await client.close();
    await expect(client.request({ method: 'GET', path: '/recordings', schema: null })).rejects.toThrow(/closed/);
    expect(scenario.server.requests).toHaveLength(0);
  });
});

describe('refused before sending', () => {
  it('refuses http:// to a host that is not loopback (exit 2), sending nothing', async () => {
    let created = 0;
    const count = (): void => {
      created++;
    };
    diagnostics.subscribe('http.client.request.start', count);
    diagnostics.subscribe('net.client.socket', count);
    try {
      let error: unknown;
      try {
        const client = createApiClient({
          baseUrl: 'http://example.invalid',
          apiKey: KEY,
          timeoutMs: 1_000,
          maxRetries: 0,
          ratePerMinute: 0,
        });
        await client.request({ method: 'GET', path: '/recordings', schema: null }).finally(() => client.close());
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect(exitCodeFor(error)).toBe(2);
      expect((error as Error).message).toContain('example.invalid');
      expect(created).toBe(0);
    } finally {
      diagnostics.unsubscribe('http.client.request.start', count);
      diagnostics.unsubscribe('net.client.socket', count);
    }
  });

  it('refuses a key of the wrong form locally (exit 2) and never echoes it', async () => {
    const error = await rejection(
      (async () =>
        createApiClient({
          baseUrl: scenario.server.url,
          apiKey: 'sk_live_supersecret',
          timeoutMs: 1_000,
          maxRetries: 0,
          ratePerMinute: 0,
        }))(),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeFor(error)).toBe(2);
    expect((error as Error).message).not.toContain('supersecret');
    expect(scenario.server.requests).toHaveLength(0);
  });
});
