import { describe, expect, it } from 'vitest';
import { ApiError, ContractError, exitCodeFor } from '../../src/core/errors.js';
import { AnyList, RecordingList } from '../../src/shared/answer-checks.generated.js';
import { problem, rejection, useScenario } from './support.js';
import { FINAL_ERRORS } from '../helpers/fixtures.js';

const scenario = useScenario();

function recording(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    title: `Recording ${id}`,
    status: 'COMPLETED',
    priority: 'HIGH',
    audioDuration: 61,
    audioSize: 1024,
    notes: [],
    documents: [],
    author: { id: 'u1', name: 'Ada', email: 'ada@example.com' },
    client: null,
    matter: null,
    createdAt: '2025-01-02T03:04:05.000Z',
    updatedAt: '2025-01-02T03:04:05.000Z',
    lastSyncedAt: null,
    syncCount: 0,
    ...overrides,
  };
}

function page(items: unknown[]) {
  return { data: items, meta: { count: items.length, limit: 50, hasMore: false, nextCursor: null } };
}

describe('error answers', () => {
  it.each(FINAL_ERRORS)('turns HTTP %i %s into an ApiError with exit %i after exactly one attempt', async (status, code, exit) => {
    scenario.server.queue(problem(status, code, `title of ${code}`));
    const error = await rejection(scenario.client().request({ method: 'GET', path: '/recordings', schema: null }));

    expect(error).toBeInstanceOf(ApiError);
    const api = error as ApiError;
    expect(api).toMatchObject({ status, code, title: `title of ${code}`, requestId: `req_${code.toLowerCase()}` });
    expect(api.type).toBe(`https://problems.example/${code.toLowerCase().replace(/_/g, '-')}`);
    expect(api.body).toMatchObject({ code, status });
    expect(exitCodeFor(api)).toBe(exit);
    expect(scenario.server.requests).toHaveLength(1);
    expect(scenario.time.waits).toEqual([]);
  });

  it('takes the request id from x-request-id when the body has none', async () => {
    scenario.server.queue({
      status: 404,
      headers: { 'x-request-id': 'hdr_42' },
      body: { title: 'Not here', code: 'RESOURCE_NOT_FOUND', status: 404 },
    });
    const error = (await rejection(scenario.client().request({ method: 'GET', path: '/recordings/x', schema: null }))) as ApiError;
    expect(error.requestId).toBe('hdr_42');
  });

  it('prefers the body requestId over the header', async () => {
    scenario.server.queue({ ...problem(404, 'RESOURCE_NOT_FOUND', 'Not found', 'req_body'), headers: { 'x-request-id': 'req_header' } });
    const error = (await rejection(scenario.client().request({ method: 'GET', path: '/recordings/x', schema: null }))) as ApiError;
    expect(error.requestId).toBe('req_body');
  });

  it('turns an HTML error page into HTTP_<status> with the status text, never the HTML', async () => {
    const html = '<html><head><title>Gateway</title></head><body><h1>Oops</h1></body></html>';
    scenario.server.queue({ status: 404, headers: { 'content-type': 'text/html' }, body: html });
    const error = (await rejection(scenario.client().request({ method: 'GET', path: '/recordings/x', schema: null }))) as ApiError;

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'HTTP_404', title: 'Not Found', requestId: null, body: undefined });
    expect(error.message).not.toContain('<');
    expect(exitCodeFor(error)).toBe(4);
  });

  it('treats a proxy 502 page as a transient failure (exit 6)', async () => {
    scenario.server.queue({ status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad gateway</h1>' });
    const error = (await rejection(
      scenario.client({ maxRetries: 0 }).request({ method: 'GET', path: '/recordings', schema: null }),
    )) as ApiError;
    expect(error).toMatchObject({ status: 502, code: 'HTTP_502', title: 'Bad Gateway' });
    expect(exitCodeFor(error)).toBe(6);
  });

  it("keeps the HTTP status when the body's status disagrees", async () => {
    scenario.server.queue({ status: 404, body: { title: 'Boom', status: 500, code: 'INTERNAL_ERROR' } });
    const error = (await rejection(scenario.client().request({ method: 'GET', path: '/recordings/x', schema: null }))) as ApiError;
    expect(error.status).toBe(404);
    expect(exitCodeFor(error)).toBe(4);
    // The body's 500 must not make a 404 retryable.
    expect(scenario.server.requests).toHaveLength(1);
  });

  it('retries by the HTTP status even when the body claims a final one', async () => {
    scenario.server.queue({ status: 503, body: { title: 'Bad input?', status: 400, code: 'INVALID_INPUT' } }, { status: 200, body: {} });
    const res = await scenario.client().request({ method: 'GET', path: '/recordings', schema: null });
    expect(res.attempts).toBe(2);
  });

  it('cuts absurdly long server titles and codes', async () => {
    scenario.server.queue({ status: 400, body: { title: 'T'.repeat(10_000), code: 'C'.repeat(5_000), status: 400 } });
    const error = (await rejection(scenario.client().request({ method: 'GET', path: '/recordings', schema: null }))) as ApiError;
    expect(error.title.length).toBeLessThanOrEqual(300);
    expect(error.title.startsWith('TTT')).toBe(true);
    expect(error.code.length).toBeLessThanOrEqual(100);
    expect(String(error.body?.title).length).toBeLessThanOrEqual(300);
  });

  it('uses the status text when a JSON error body is not problem details', async () => {
    scenario.server.queue({ status: 409, body: { error: 'conflict', title: 42 } });
    const error = (await rejection(scenario.client().request({ method: 'GET', path: '/recordings', schema: null }))) as ApiError;
    expect(error).toMatchObject({ status: 409, code: 'HTTP_409', title: 'Conflict', body: { error: 'conflict', title: 42 } });
  });
});

describe('answers that break the contract', () => {
  it('refuses a 2xx answer that is not JSON (exit 7)', async () => {
    scenario.server.queue({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>captive portal</html>' });
    const error = await rejection(scenario.client().request({ method: 'GET', path: '/recordings', schema: RecordingList }));
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).message).toBe("the server's answer is not JSON");
    expect(exitCodeFor(error)).toBe(7);
  });

  it('names the path of a bad field and the allowed values', async () => {
    const items = [recording('r0'), recording('r1'), recording('r2'), recording('r3', { status: 'DONE' })];
    scenario.server.queue({ body: page(items) });
    const error = (await rejection(
      scenario.client().request({ method: 'GET', path: '/recordings', schema: RecordingList }),
    )) as ContractError;

    expect(error).toBeInstanceOf(ContractError);
    expect(error.path).toBe('data[3].status');
    expect(error.message).toContain(
      'data[3].status: expected one of "DRAFT", "PENDING", "CLAIMED", "REVIEW_PENDING", "COMPLETED", "ARCHIVED", got "DONE"',
    );
    expect(exitCodeFor(error)).toBe(7);
  });

  it('says when a required field is missing or of the wrong type', async () => {
    const { syncCount: _dropped, ...withoutCount } = recording('r0');
    scenario.server.queue({ body: page([withoutCount]) }, { body: page([recording('r0', { audioSize: '12' })]) });
    const client = scenario.client();
    const missing = (await rejection(client.request({ method: 'GET', path: '/recordings', schema: RecordingList }))) as ContractError;
    expect(missing.path).toBe('data[0].syncCount');
    expect(missing.message).toContain('data[0].syncCount: missing (expected number)');
    const wrong = (await rejection(client.request({ method: 'GET', path: '/recordings', schema: RecordingList }))) as ContractError;
    expect(wrong.message).toContain('data[0].audioSize: expected number, got string');
  });

  it('keeps fields it does not know', async () => {
    scenario.server.queue({
      body: {
        ...page([recording('r0', { betaScore: 0.9, author: { id: 'u', name: 'A', email: 'a@x', team: 'red' } })]),
        links: { self: '/x' },
      },
    });
    const res = await scenario.client().request({ method: 'GET', path: '/recordings', schema: RecordingList });
    expect(res.data.data[0]).toMatchObject({ betaScore: 0.9, author: { team: 'red' } });
    expect(res.data).toMatchObject({ links: { self: '/x' } });
  });

  it('needs no body when the schema is null (204)', async () => {
    scenario.server.queue({ status: 204 });
    const res = await scenario.client().request({ method: 'DELETE', path: '/webhooks/w1', schema: null });
    expect(res.status).toBe(204);
    expect(res.data).toBeUndefined();
  });

  it('returns whatever JSON comes back when the schema is null', async () => {
    scenario.server.queue({ status: 200, body: { data: { id: 'w1', deleted: true } } });
    const res = await scenario.client().request({ method: 'DELETE', path: '/webhooks/w1', schema: null });
    expect(res.data).toEqual({ data: { id: 'w1', deleted: true } });
  });

  it('refuses an empty 2xx body where a shape is expected', async () => {
    scenario.server.queue({ status: 200 });
    const error = await rejection(scenario.client().request({ method: 'GET', path: '/recordings', schema: AnyList }));
    expect(error).toBeInstanceOf(ContractError);
  });

  it('refuses a 50 MB answer without reading it all (default cap 16 MiB)', async () => {
    scenario.server.queue({ status: 200, headers: { 'content-type': 'application/json' }, streamBytes: 50 * 1024 * 1024 });
    const error = await rejection(scenario.client().request({ method: 'GET', path: '/recordings', schema: null }));
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toContain('larger than 16 MiB');
    expect(exitCodeFor(error)).toBe(7);
    expect(scenario.server.requests).toHaveLength(1);
    expect(scenario.server.requests[0]?.completed).toBe(false);
  });

  it('refuses an answer whose declared length is over the cap before reading it', async () => {
    scenario.server.queue({ status: 200, headers: { 'content-length': String(5_000) }, endless: true, body: 'x'.repeat(100) });
    const error = await rejection(
      scenario.client({ maxResponseBytes: 1_000, timeoutMs: 10_000 }).request({ method: 'GET', path: '/recordings', schema: null }),
    );
    expect(error).toBeInstanceOf(ContractError);
    expect((error as Error).message).toContain('larger than 1000 bytes');
  });
});
