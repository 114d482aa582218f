import { describe, expect, it } from 'vitest';
import { faultSandbox } from './helpers.js';

const { h, fresh, faults, file } = faultSandbox({ recordings: 40, provider: 'script-test' });

describe('scripted faults', () => {
  it('the next filing fails after it was committed: stored, answered 500, and the retry is replayed', async () => {
    const id = fresh();
    const set = await faults({ script: [{ match: '/filings', method: 'POST', kind: 'error-after', times: 1 }] });
    expect(set.status).toBe(200);
    expect(set.json.data).toEqual({
      rate: 0,
      kinds: ['error-before', 'error-after', 'rate-limit', 'reset', 'delay'],
      delayMs: null,
      match: null,
      script: [{ match: '/filings', method: 'POST', kind: 'error-after', times: 1, delayMs: null }],
    });
    // Reads do not match: they pass untouched and leave the script as it is.
    expect((await h().api(`/recordings/${id}`)).status).toBe(200);
    const lost = await file(id, 'SC-1');
    expect(lost.status).toBe(500);
    expect(lost.json.code).toBe('INTERNAL_ERROR');
    expect((await h().api(`/recordings/${id}`)).json.data.syncCount).toBe(1);
    const retry = await file(id, 'SC-1');
    expect(retry.status).toBe(200);
    expect(retry.json.meta.replayed).toBe(true);
    expect(retry.json.data.syncCount).toBe(1);
    // Used up: the answer no longer shows a script.
    expect((await h().control('/faults')).json.data.script).toBeUndefined();
  });

  it('gives the steps in order, each `times` times, then nothing', async () => {
    await faults({
      script: [
        { kind: 'rate-limit', times: 2 },
        { kind: 'error-before', times: 1 },
      ],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await h().api('/recordings?limit=1')).status);
    expect(statuses).toEqual([429, 429, 500, 200]);
    const log = (await h().control('/requests')).json.data.slice(-4);
    expect(log.map((r: { fault: string | null }) => r.fault)).toEqual(['rate-limit', 'rate-limit', 'error-before', null]);
  });

  it('error-before changes nothing; the method picks which requests a step waits for', async () => {
    const id = fresh();
    await faults({ script: [{ method: 'POST', kind: 'error-before', times: 1 }] });
    expect((await h().api(`/recordings/${id}`)).status).toBe(200);
    expect((await file(id, 'SC-2')).status).toBe(500);
    expect((await h().api(`/recordings/${id}`)).json.data.syncCount).toBe(0);
    expect((await file(id, 'SC-2')).json.meta.replayed).toBe(false);
  });

  it('runs before the random rate: a rate of 1 applies only once the script is used up', async () => {
    await faults({ rate: 1, kinds: ['rate-limit'], script: [{ kind: 'error-before', times: 1 }] });
    expect((await h().api('/recordings?limit=1')).status).toBe(500);
    expect((await h().api('/recordings?limit=1')).status).toBe(429);
  });

  it('resets the connection and delays on request; the log records the reset', async () => {
    await faults({
      script: [
        { kind: 'reset', times: 1 },
        { kind: 'delay', times: 1, delayMs: 250 },
      ],
    });
    await expect(fetch(`${h().base}/api/v1/recordings`, { headers: { authorization: `Bearer ${h().keys.admin}` } })).rejects.toThrow();
    const started = Date.now();
    expect((await h().api('/recordings?limit=1')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(230);
    const [reset, delayed] = (await h().control('/requests')).json.data.slice(-2);
    expect(reset).toMatchObject({ fault: 'reset', status: null, code: null });
    expect(delayed).toMatchObject({ fault: 'delay', status: 200 });
  });

  it('{rate: 0} clears a script that is left', async () => {
    await faults({ script: [{ kind: 'error-before', times: 5 }] });
    await faults({ rate: 0 });
    expect((await h().api('/recordings?limit=1')).status).toBe(200);
  });

  it('validates each step, naming the bad one', async () => {
    const cases: [unknown, string][] = [
      [{ script: [{ kind: 'explode', times: 1 }] }, 'script[0].kind'],
      [
        {
          script: [
            { kind: 'reset', times: 1 },
            { kind: 'reset', times: 0 },
          ],
        },
        'script[1].times',
      ],
      [{ script: [{ kind: 'reset', times: 1, method: 'PATCH' }] }, 'script[0].method'],
      [{ script: [{ kind: 'reset', times: 1, path: '/x' }] }, 'script[0]'],
      [{}, 'rate'],
    ];
    for (const [body, path] of cases) {
      const res = await faults(body);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_INPUT', path });
    }
  });
});
