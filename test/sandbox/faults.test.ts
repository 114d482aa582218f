import { describe, expect, it } from 'vitest';
import { faultSandbox } from './helpers.js';

const { h, fresh, faults, file } = faultSandbox({ recordings: 60, provider: 'fault-test' });

describe('fault injection', () => {
  it('error-after commits the filing and loses the answer; the retry is a replay, counted once', async () => {
    const id = fresh();
    const before = (await h().control('/stats')).json;
    const set = await faults({ rate: 1, kinds: ['error-after'], match: '/filings' });
    expect(set.json.data).toEqual({ rate: 1, kinds: ['error-after'], delayMs: null, match: '/filings' });
    const lost = await file(id, 'E-1');
    expect(lost.status).toBe(500);
    expect(lost.json.code).toBe('INTERNAL_ERROR');
    // Reads do not match "/filings", so they are not faulted.
    expect((await h().api(`/recordings/${id}`)).json.data.syncCount).toBe(1);
    const retried = await file(id, 'E-1');
    expect(retried.status).toBe(500);
    await faults({ rate: 0 });
    const last = await file(id, 'E-1');
    expect(last.json.meta.replayed).toBe(true);
    expect(last.json.data.syncCount).toBe(1);
    const after = (await h().control('/stats')).json;
    expect(after.filings).toBe(before.filings + 1);
    expect(after.faults['error-after']).toBe(before.faults['error-after'] + 2);
  });

  it('error-before changes nothing', async () => {
    const id = fresh();
    await faults({ rate: 1, kinds: ['error-before'] });
    const res = await file(id, 'B-1');
    expect(res.status).toBe(500);
    await faults({ rate: 0 });
    expect((await h().api(`/recordings/${id}`)).json.data.syncCount).toBe(0);
  });

  it('rate-limit answers 429 with Retry-After', async () => {
    await faults({ rate: 1, kinds: ['rate-limit'] });
    const res = await h().api('/recordings');
    expect(res.status).toBe(429);
    expect(res.json.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('reset drops the connection, and the server carries on', async () => {
    await faults({ rate: 1, kinds: ['reset'] });
    await expect(fetch(`${h().base}/api/v1/recordings`, { headers: { authorization: `Bearer ${h().keys.admin}` } })).rejects.toThrow();
    await faults({ rate: 0 });
    expect((await h().api('/recordings')).status).toBe(200);
  });

  it('delay answers normally, late', async () => {
    await faults({ rate: 1, kinds: ['delay'], delayMs: 300 });
    const started = Date.now();
    const res = await h().api('/recordings?limit=1');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('never touches the control API', async () => {
    await faults({ rate: 1, kinds: ['error-before', 'reset'] });
    for (let i = 0; i < 5; i++) expect((await h().control('/stats')).status).toBe(200);
  });

  it('validates the control body', async () => {
    for (const body of [{ rate: 2 }, { rate: 0.5, kinds: ['explode'] }, { kinds: ['delay'] }, { rate: 0.5, delayMs: -1 }]) {
      const res = await faults(body);
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('INVALID_INPUT');
    }
  });

  it('lets a retrying client file every recording exactly once under random faults of every kind', async () => {
    const batch = Array.from({ length: 12 }, fresh);
    const before = (await h().control('/stats')).json;
    await faults({ rate: 0.6, delayMs: 5 });
    for (const id of batch) {
      for (let attempt = 0; ; attempt++) {
        expect(attempt).toBeLessThan(60);
        const res = await file(id, `R-${id}`).catch(() => null);
        if (res?.status === 200) break;
      }
    }
    await faults({ rate: 0 });
    for (const id of batch) expect((await h().api(`/recordings/${id}`)).json.data.syncCount).toBe(1);
    const after = (await h().control('/stats')).json;
    expect(after.filings - before.filings).toBe(batch.length);
    const injected =
      Object.values(after.faults as Record<string, number>).reduce((a, b) => a + b, 0) -
      Object.values(before.faults as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(injected).toBeGreaterThan(0);
  });
});
