// The retry policy, the pacing bucket and the contract path format, without a server.
import { describe, expect, it } from 'vitest';
import { formatPath } from '../../src/api/contract.js';
import { TokenBucket } from '../../src/api/pacing.js';
import { backoffMs, classifyNetworkError, parseRetryAfter, planRetry, SendLog } from '../../src/api/retry.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('backoff', () => {
  it('is full jitter over min(30 s, 1 s × 2^(n−1))', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map((n) => backoffMs(n, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
    expect(backoffMs(3, () => 0.25)).toBe(1_000);
    expect(backoffMs(3, () => 0)).toBe(0);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 30 ', NOW)).toBe(30_000);
    expect(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000);
    expect(parseRetryAfter(['5', '9'], NOW)).toBe(5_000);
  });

  it('treats a date in the past as no wait, and nonsense as absent', () => {
    expect(parseRetryAfter(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter('-3', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
  });
});

describe('planRetry', () => {
  const base = { retry: 1, maxRetries: 5, now: NOW, random: () => 0.5, oldestRecentSend: undefined, idempotent: true };

  it.each([400, 401, 403, 404, 409, 415, 422, 501, 599])('never retries HTTP %i', (status) => {
    expect(planRetry({ ...base, failure: { kind: 'status', status } })).toEqual({ retry: false, because: 'final' });
  });

  it.each([429, 500, 502, 503, 504])('retries HTTP %i', (status) => {
    expect(planRetry({ ...base, failure: { kind: 'status', status } })).toMatchObject({ retry: true });
  });

  it('gives up after maxRetries retries', () => {
    expect(planRetry({ ...base, retry: 6, failure: { kind: 'status', status: 500 } })).toEqual({ retry: false, because: 'exhausted' });
    expect(planRetry({ ...base, retry: 5, failure: { kind: 'status', status: 500 } })).toMatchObject({ retry: true, ms: 8_000 });
  });

  it('lets Retry-After decide, up to 120 s', () => {
    expect(planRetry({ ...base, failure: { kind: 'status', status: 503, retryAfter: '120' } })).toMatchObject({ retry: true, ms: 120_000 });
    expect(planRetry({ ...base, failure: { kind: 'status', status: 503, retryAfter: '121' } })).toMatchObject({ retry: true, ms: 120_000 });
    expect(planRetry({ ...base, failure: { kind: 'status', status: 429, retryAfter: '999999999' } })).toMatchObject({
      retry: true,
      ms: 120_000,
    });
  });

  it('keeps the jitter when it is longer than the 429 window', () => {
    const plan = planRetry({
      ...base,
      retry: 6,
      maxRetries: 9,
      random: () => 1,
      oldestRecentSend: NOW - 59_000,
      failure: { kind: 'status', status: 429 },
    });
    expect(plan).toMatchObject({ retry: true, ms: 30_000 });
  });

  it('retries network failures the classifier calls retryable', () => {
    expect(planRetry({ ...base, failure: { kind: 'network', retryable: true, reason: 'connection reset', code: 'ECONNRESET' } })).toEqual({
      retry: true,
      ms: 500,
      reason: 'connection reset',
    });
    expect(planRetry({ ...base, failure: { kind: 'network', retryable: false, reason: 'TLS failure', code: 'CERT_HAS_EXPIRED' } })).toEqual(
      {
        retry: false,
        because: 'final',
      },
    );
  });

  it('sends a request that is not idempotent again only after a failure that proves it was never carried out', () => {
    const once = { ...base, idempotent: false };
    const network = (code: string) => ({ kind: 'network' as const, retryable: true, reason: code, code });
    expect(planRetry({ ...once, failure: { kind: 'status', status: 429 } })).toMatchObject({ retry: true });
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])
      expect(planRetry({ ...once, failure: network(code) })).toMatchObject({ retry: true });
    for (const status of [500, 502, 503, 504]) {
      expect(planRetry({ ...once, failure: { kind: 'status', status } })).toEqual({ retry: false, because: 'not-idempotent' });
    }
    for (const code of ['ECONNRESET', 'TIMEOUT', 'ECONNCLOSED']) {
      expect(planRetry({ ...once, failure: network(code) })).toEqual({ retry: false, because: 'not-idempotent' });
    }
    // Out of retries, it says so, as for any request.
    expect(planRetry({ ...once, retry: 6, failure: { kind: 'status', status: 500 } })).toEqual({ retry: false, because: 'exhausted' });
    expect(planRetry({ ...once, failure: { kind: 'status', status: 404 } })).toEqual({ retry: false, because: 'final' });
  });
});

describe('classifyNetworkError', () => {
  it.each(['ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNCLOSED', 'ETIMEDOUT'])('retries %s', (code) => {
    expect(classifyNetworkError(Object.assign(new Error('x'), { code }))).toMatchObject({ code, retryable: true });
  });

  it('reports TLS failures without retrying them', () => {
    expect(classifyNetworkError(Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }))).toMatchObject({ retryable: false });
    expect(classifyNetworkError(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }))).toMatchObject({
      retryable: false,
    });
  });

  it('finds the code in an AggregateError from happy eyeballs', () => {
    const error = new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'all failed');
    expect(classifyNetworkError(error)).toMatchObject({ code: 'ECONNREFUSED', retryable: true });
  });

  it('leaves other errors alone (they are bugs, not network failures)', () => {
    expect(classifyNetworkError(new TypeError('bad'))).toBeUndefined();
    expect(classifyNetworkError(Object.assign(new Error('x'), { code: 'UND_ERR_INVALID_ARG' }))).toBeUndefined();
  });
});

describe('SendLog', () => {
  it('remembers the oldest send of the last minute only', () => {
    const log = new SendLog();
    log.record(NOW);
    log.record(NOW + 30_000);
    expect(log.oldestWithin(NOW + 59_999)).toBe(NOW);
    expect(log.oldestWithin(NOW + 60_000)).toBe(NOW + 30_000);
    expect(log.oldestWithin(NOW + 200_000)).toBeUndefined();
  });
});

describe('TokenBucket', () => {
  it('gives a burst of 10, then one token per 60/rate seconds', () => {
    const bucket = new TokenBucket(120);
    const waits = Array.from({ length: 12 }, () => bucket.reserve(NOW));
    expect(waits).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 500, 1_000]);
  });

  it('refills over time, never beyond its capacity', () => {
    const bucket = new TokenBucket(60);
    for (let i = 0; i < 10; i++) bucket.reserve(NOW);
    expect(bucket.reserve(NOW + 3_000)).toBe(0); // 3 tokens back, one taken
    expect(bucket.reserve(NOW + 3_000)).toBe(0);
    expect(bucket.reserve(NOW + 3_000)).toBe(0);
    expect(bucket.reserve(NOW + 3_000)).toBe(1_000);
    const rested = new TokenBucket(60);
    rested.reserve(NOW);
    const later = NOW + 3_600_000;
    expect(Array.from({ length: 11 }, () => rested.reserve(later))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1_000]);
  });
});

describe('formatPath', () => {
  it('writes zod paths as data[3].status', () => {
    expect(formatPath(['data', 3, 'status'])).toBe('data[3].status');
    expect(formatPath([0, 'a'])).toBe('[0].a');
    expect(formatPath(['meta', 'odd key'])).toBe('meta["odd key"]');
    expect(formatPath([])).toBe('');
  });
});
