import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/sandbox/rate-limit.js';
import { start, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('rate limit over HTTP', () => {
  it('refuses the request after the limit with 429 and a Retry-After in whole seconds', async () => {
    h = await start({ rateLimit: 5, rateWindowSeconds: 60 });
    for (let i = 0; i < 5; i++) expect((await h.api('/recordings?limit=1')).status).toBe(200);
    const res = await h.api('/recordings?limit=1');
    expect(res.status).toBe(429);
    expect(res.json.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(res.json.type).toBe('https://sandbox.rfs.invalid/problems/rate-limit-exceeded');
    // 5 per 60 s refills one token every 12 s.
    expect(res.headers.get('retry-after')).toBe('12');
  });

  it('limits per workspace: exhausting main does not limit other, but limits every key of main', async () => {
    h = await start({ rateLimit: 3, rateWindowSeconds: 60 });
    for (let i = 0; i < 3; i++) expect((await h.api('/recordings', { key: h.keys.readOnly })).status).toBe(200);
    expect((await h.api('/recordings')).status).toBe(429);
    expect((await h.api('/webhooks', { key: h.keys.webhooks })).status).toBe(429);
    expect((await h.api('/recordings', { key: h.keys.otherWorkspace })).status).toBe(200);
  });

  it('checks the limit after the key and scope, and before validation', async () => {
    h = await start({ rateLimit: 1, rateWindowSeconds: 60 });
    expect((await h.api('/recordings')).status).toBe(200);
    expect((await h.api('/recordings', { key: null })).status).toBe(401);
    expect((await h.api('/recordings/x/filings', { key: h.keys.readOnly, body: {} })).json.code).toBe('INSUFFICIENT_SCOPE');
    expect((await h.api('/recordings?limit=999')).status).toBe(429);
  });

  it('gives tokens back over time', async () => {
    let offset = 0;
    h = await start({ rateLimit: 2, rateWindowSeconds: 60, now: () => Date.now() + offset });
    expect((await h.api('/recordings')).status).toBe(200);
    expect((await h.api('/recordings')).status).toBe(200);
    expect((await h.api('/recordings')).status).toBe(429);
    offset += 30_000;
    expect((await h.api('/recordings')).status).toBe(200);
    expect((await h.api('/recordings')).status).toBe(429);
  });

  it('never limits with rateLimit 0', async () => {
    h = await start({ rateLimit: 0 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => h!.api('/recordings?limit=1')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });

  it('limits the default to 120 per minute', async () => {
    // The clock stands still: the bucket earns 2 tokens a second, and 125 requests on a busy
    // machine can take longer than half a second to answer.
    const frozen = Date.now();
    h = await start({ now: () => frozen });
    const answers = await Promise.all(Array.from({ length: 125 }, () => h!.api('/recordings?limit=1')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(120);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
  });
});

describe('RateLimiter', () => {
  it('never refuses a client that paces itself with a token bucket of the same rate and burst', () => {
    const limiter = new RateLimiter(120, 60);
    // The client: burst of 120, then one request every 500 ms (120 per minute), for ten minutes.
    let t = 1_000_000;
    for (let i = 0; i < 120; i++) expect(limiter.take('main', t).ok).toBe(true);
    for (let i = 0; i < 1200; i++) {
      t += 500;
      expect(limiter.take('main', t).ok).toBe(true);
    }
    expect(limiter.take('main', t).ok).toBe(false);
  });

  it('says how long until the next token, at least one second', () => {
    const limiter = new RateLimiter(10, 1);
    for (let i = 0; i < 10; i++) limiter.take('w', 0);
    expect(limiter.take('w', 0)).toEqual({ ok: false, retryAfterSeconds: 1 });
    const slow = new RateLimiter(1, 3600);
    slow.take('w', 0);
    expect(slow.take('w', 60_000)).toEqual({ ok: false, retryAfterSeconds: 3540 });
  });
});
