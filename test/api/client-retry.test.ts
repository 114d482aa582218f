import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError, CancelError, NetworkError, exitCodeFor } from '../../src/core/errors.js';
import { closedPort } from '../helpers/scenario-server.js';
import type { WaitMessage } from '../../src/api/waits.js';
import { KEY, problem, rejection, useScenario } from './support.js';

const scenario = useScenario();
const GET = { method: 'GET', path: '/recordings', schema: null } as const;

describe('retries', () => {
  it('retries a 500 and returns the next answer', async () => {
    scenario.server.queue(problem(500, 'INTERNAL_ERROR', 'Internal error'), { body: { ok: true } });
    const res = await scenario.client().request(GET);
    expect(res).toMatchObject({ status: 200, data: { ok: true }, attempts: 2 });
    // Full jitter with random() = 0.5 before retry 1: 0.5 × 1 s.
    expect(scenario.time.waits).toEqual([500]);
  });

  it.each([502, 503, 504])('retries HTTP %i', async (status) => {
    scenario.server.queue({ status }, { body: {} });
    const res = await scenario.client().request(GET);
    expect(res.attempts).toBe(2);
  });

  it('stops after max retries and exits 6, saying how many attempts were made', async () => {
    for (let i = 0; i < 6; i++) scenario.server.queue(problem(503, 'UNAVAILABLE', 'Try later', `req_${i}`));
    const onWait: unknown[] = [];
    const error = (await rejection(scenario.client({ onWait: (w) => onWait.push(w) }).request(GET))) as ApiError;

    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(503);
    expect(error.requestId).toBe('req_5');
    expect(exitCodeFor(error)).toBe(6);
    expect(error.hint).toContain('after 6 attempts');
    expect(scenario.server.requests).toHaveLength(6);
    expect(scenario.time.waits).toEqual([500, 1_000, 2_000, 4_000, 8_000]);
    expect(onWait).toEqual([
      { ms: 500, reason: 'HTTP 503', attempt: 2, kind: 'retry' },
      { ms: 1_000, reason: 'HTTP 503', attempt: 3, kind: 'retry' },
      { ms: 2_000, reason: 'HTTP 503', attempt: 4, kind: 'retry' },
      { ms: 4_000, reason: 'HTTP 503', attempt: 5, kind: 'retry' },
      { ms: 8_000, reason: 'HTTP 503', attempt: 6, kind: 'retry' },
    ]);
  });

  it('caps the backoff at 30 s', async () => {
    for (let i = 0; i < 8; i++) scenario.server.queue({ status: 500 });
    await rejection(scenario.client({ maxRetries: 7, random: () => 1 }).request(GET));
    expect(scenario.time.waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(scenario.server.requests).toHaveLength(8);
  });

  it('makes one attempt when max retries is 0', async () => {
    scenario.server.queue({ status: 500 });
    const error = (await rejection(scenario.client({ maxRetries: 0 }).request(GET))) as ApiError;
    expect(error.hint).toContain('after 1 attempt;');
    expect(scenario.server.requests).toHaveLength(1);
  });

  it('waits as long as Retry-After says in seconds', async () => {
    scenario.server.queue({ ...problem(429, 'RATE_LIMIT_EXCEEDED', 'Slow down'), headers: { 'retry-after': '7' } }, { body: {} });
    const res = await scenario.client().request(GET);
    expect(res.attempts).toBe(2);
    expect(scenario.time.waits).toEqual([7_000]);
  });

  it('waits until a Retry-After HTTP date', async () => {
    const at = new Date(scenario.time.now + 12_000).toUTCString();
    scenario.server.queue({ status: 429, headers: { 'retry-after': at } }, { body: {} });
    await scenario.client().request(GET);
    expect(scenario.time.waits).toEqual([12_000]);
  });

  it('waits for the next one-minute window after a 429 without Retry-After', async () => {
    scenario.server.queue({ body: {} }, problem(429, 'RATE_LIMIT_EXCEEDED', 'Slow down'), { body: {} });
    const waits: WaitMessage[] = [];
    const client = scenario.client({ onWait: (w) => waits.push(w) });
    await client.request(GET); // the oldest request of this minute, at T
    scenario.time.advance(20_000);
    const res = await client.request(GET); // 429 at T + 20 s
    expect(res.attempts).toBe(2);
    // A new window can open 60 s after T, i.e. 40 s from now; far more than the 0.5 s jitter.
    expect(scenario.time.waits).toEqual([40_000]);
    expect(waits[0]?.reason).toContain('one-minute window');
  });

  it('does not count requests older than a minute towards the 429 window', async () => {
    scenario.server.queue({ body: {} }, { status: 429 }, { body: {} });
    const client = scenario.client({ random: () => 0 });
    await client.request(GET);
    scenario.time.advance(90_000);
    await client.request(GET);
    expect(scenario.time.waits).toEqual([60_000]);
  });

  it('waits the capped 120 s when Retry-After asks for 999999999 s, then retries (cli.md, Retries)', async () => {
    scenario.server.queue(
      { ...problem(429, 'RATE_LIMIT_EXCEEDED', 'Slow down'), headers: { 'retry-after': '999999999' } },
      { body: { ok: true } },
    );
    const waits: WaitMessage[] = [];
    const res = await scenario.client({ onWait: (w) => waits.push(w) }).request(GET);
    expect(res).toMatchObject({ status: 200, data: { ok: true }, attempts: 2 });
    expect(scenario.server.requests).toHaveLength(2);
    expect(scenario.time.waits).toEqual([120_000]);
    expect(waits).toEqual([
      { ms: 120_000, reason: 'HTTP 429, the server asked to wait 999999999 s (rfs waits at most 120 s)', attempt: 2, kind: 'retry' },
    ]);
  });

  it('waits the capped 120 s on a 503 whose Retry-After date is 121 s away', async () => {
    scenario.server.queue({ status: 503, headers: { 'retry-after': new Date(scenario.time.now + 121_000).toUTCString() } }, { body: {} });
    const res = await scenario.client().request(GET);
    expect(res.attempts).toBe(2);
    expect(scenario.time.waits).toEqual([120_000]);
  });

  it('still gives up with exit 6 when every capped Retry-After wait ends in another 429', async () => {
    for (let i = 0; i < 3; i++)
      scenario.server.queue({ ...problem(429, 'RATE_LIMIT_EXCEEDED', 'Slow down'), headers: { 'retry-after': '999999999' } });
    const error = (await rejection(scenario.client({ maxRetries: 2 }).request(GET))) as ApiError;
    expect(exitCodeFor(error)).toBe(6);
    expect(error.hint).toContain('after 3 attempts');
    expect(scenario.time.waits).toEqual([120_000, 120_000]);
  });

  it('sends the identical Idempotency-Key and body on every attempt', async () => {
    scenario.server.queue(
      { status: 503 },
      { reset: true },
      { status: 201, body: { data: { url: 'https://h.example/x', events: [], secret: 's' } } },
    );
    const res = await scenario.client().request({
      method: 'POST',
      path: '/webhooks',
      headers: { 'Idempotency-Key': 'rfs-4b9c0a8e-1111-2222-3333-444455556666' },
      body: { url: 'https://h.example/x', events: ['recording.completed'] },
      schema: null,
    });
    expect(res.attempts).toBe(3);
    const requests = scenario.server.requests;
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.method).toBe('POST');
      expect(r.headers['idempotency-key']).toBe('rfs-4b9c0a8e-1111-2222-3333-444455556666');
      expect(r.body).toBe('{"url":"https://h.example/x","events":["recording.completed"]}');
    }
  });
});

describe('a POST without an Idempotency-Key (not a filing)', () => {
  const POST = { method: 'POST', path: '/webhooks/deliveries/dlv_1/replay', body: {}, schema: null } as const;

  it('is sent again after a 429: the server did not process it', async () => {
    scenario.server.queue(problem(429, 'RATE_LIMIT_EXCEEDED', 'Slow down'), { body: {} });
    const res = await scenario.client().request(POST);
    expect(res.attempts).toBe(2);
    expect(scenario.server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(scenario.time.waits).toHaveLength(1);
  });

  it('is sent once after a 500: the server may have carried it out', async () => {
    scenario.server.queue(problem(500, 'INTERNAL_ERROR', 'Internal error'));
    const lines: string[] = [];
    const error = (await rejection(scenario.client({ log: (l) => lines.push(l) }).request(POST))) as ApiError;
    expect(error.status).toBe(500);
    expect(scenario.server.requests).toHaveLength(1);
    expect(scenario.time.waits).toEqual([]);
    expect(lines[0]).toContain('not retrying: a POST without an Idempotency-Key may already have been carried out');
  });

  it('is sent again after a refused connection: nothing reached the server', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const client = scenario.client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, log: (l) => lines.push(l) });
    const error = (await rejection(client.request(POST))) as NetworkError;
    expect(error.message).toContain('gave up after 3 attempts');
    expect(scenario.time.waits).toEqual([500, 1_000]);
    expect(lines).toHaveLength(3);
  });
});

describe('network failures', () => {
  it('retries a reset connection', async () => {
    scenario.server.queue({ reset: true }, { body: { ok: 1 } });
    const res = await scenario.client().request(GET);
    expect(res).toMatchObject({ attempts: 2, data: { ok: 1 } });
    expect(scenario.server.requests).toHaveLength(2);
    expect(scenario.time.waits).toEqual([500]);
  });

  it('retries a refused connection and ends with exit 6', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const client = scenario.client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, log: (l) => lines.push(l) });
    const error = (await rejection(client.request(GET))) as NetworkError;

    expect(error).toBeInstanceOf(NetworkError);
    expect(exitCodeFor(error)).toBe(6);
    expect(error.message).toContain('connection refused (ECONNREFUSED)');
    expect(error.message).toContain('gave up after 3 attempts');
    expect(scenario.time.waits).toEqual([500, 1_000]);
    expect(lines).toHaveLength(3);
  });

  it('times out an answer that is too slow, per attempt, and retries it', async () => {
    scenario.server.queue({ delayMs: 3_000, body: {} }, { delayMs: 3_000, body: {} });
    const started = Date.now();
    const error = (await rejection(scenario.client({ timeoutMs: 150, maxRetries: 1 }).request(GET))) as NetworkError;

    expect(error).toBeInstanceOf(NetworkError);
    expect(exitCodeFor(error)).toBe(6);
    expect(error.message).toContain('within 0.15 s');
    expect(error.message).toContain('gave up after 2 attempts');
    expect(scenario.server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a body that never ends', async () => {
    scenario.server.queue(
      { status: 200, headers: { 'content-type': 'application/json' }, endless: true, body: '{"data": [' },
      { body: { ok: true } },
    );
    const started = Date.now();
    const res = await scenario.client({ timeoutMs: 200 }).request(GET);
    expect(res).toMatchObject({ attempts: 2, data: { ok: true } });
    expect(scenario.server.requests[0]?.completed).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('cancellation', () => {
  it('ends a retry wait at once on Ctrl-C', async () => {
    scenario.server.queue({ status: 503, headers: { 'retry-after': '100' } });
    const controller = new AbortController();
    // The real sleep: a 100 s wait that only the abort can end.
    const client = createApiClient({
      baseUrl: scenario.server.url,
      apiKey: KEY,
      timeoutMs: 5_000,
      maxRetries: 5,
      ratePerMinute: 0,
      onWait: () => setTimeout(() => controller.abort(), 20),
    });
    const started = Date.now();
    try {
      const error = await rejection(client.request({ ...GET, signal: controller.signal }));
      expect(error).toBeInstanceOf(CancelError);
      expect(exitCodeFor(error)).toBe(130);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await client.close();
    }
  });

  it('ends an attempt in flight on Ctrl-C', async () => {
    scenario.server.queue({ status: 200, endless: true, body: '{' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await rejection(scenario.client({ timeoutMs: 10_000 }).request({ ...GET, signal: controller.signal }));
    expect(error).toBeInstanceOf(CancelError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(scenario.time.waits).toEqual([]);
  });

  it('sends nothing when already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(scenario.client().request({ ...GET, signal: controller.signal }));
    expect(error).toBeInstanceOf(CancelError);
    expect(scenario.server.requests).toHaveLength(0);
  });
});

describe('pacing', () => {
  it('paces 30 requests at 600 per minute as a burst-10 bucket implies', async () => {
    for (let i = 0; i < 30; i++) scenario.server.queue({ body: {} });
    const paced: number[] = [];
    const client = scenario.client({ ratePerMinute: 600, onWait: (w) => paced.push(w.ms) });
    const start = scenario.time.now;
    for (let i = 0; i < 30; i++) await client.request(GET);

    // 10 from the burst at once, then one token every 100 ms (600 per minute).
    expect(scenario.time.waits).toEqual(Array.from({ length: 20 }, () => 100));
    expect(paced).toEqual(scenario.time.waits);
    expect(scenario.time.now - start).toBe(2_000);
    expect(scenario.server.requests).toHaveLength(30);
  });

  it('paces retries too', async () => {
    for (let i = 0; i < 9; i++) scenario.server.queue({ body: {} });
    const client = scenario.client({ ratePerMinute: 6, random: () => 0 });
    for (let i = 0; i < 9; i++) await client.request(GET); // 9 of the 10 burst tokens
    expect(scenario.time.waits).toEqual([]);

    scenario.server.queue({ status: 500 }, { body: {} });
    const res = await client.request(GET); // the 10th token; its retry needs an 11th
    expect(res.attempts).toBe(2);
    // 0 s of backoff (random() = 0), then 10 s for a token at 6 per minute.
    expect(scenario.time.waits).toEqual([0, 10_000]);
  });

  it('does not pace when the rate is 0', async () => {
    for (let i = 0; i < 15; i++) scenario.server.queue({ body: {} });
    const client = scenario.client({ ratePerMinute: 0 });
    for (let i = 0; i < 15; i++) await client.request(GET);
    expect(scenario.time.waits).toEqual([]);
  });
});
