// /api/v1 answered any Host. With the README's `--seed 42` the admin key is
// public, so a page whose name an attacker made resolve to 127.0.0.1 (DNS rebinding) could read
// every recording and create subscriptions. Bound to loopback, the sandbox now answers /api/v1
// only when addressed by a loopback name, as its control API does.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHostGuard } from '../../src/sandbox/control-guard.js';
import { ProblemError } from '../../src/sandbox/problem.js';
import { checkAnswer } from '../support/openapi-answers.js';
import { rawRequest, start, type Harness } from './helpers.js';

let h: Harness;
let port: string;
beforeAll(async () => {
  h = await start({ seed: 42, rateLimit: 0, recordings: 5 });
  port = new URL(h.base).port;
});
afterAll(() => h.close());

const auth = (): Record<string, string> => ({ authorization: `Bearer ${h.keys.admin}` });

describe('/api/v1 on a sandbox bound to loopback', () => {
  it('says why in its log', async () => {
    await rawRequest(h.base, '/api/v1/recordings', { ...auth(), host: 'rebound.example' });
    expect(h.logs.some((l) => l.includes('403 HOST_REFUSED') && l.includes('"rebound.example"'))).toBe(true);
  });

  it('refuses a request addressed by a foreign name with 403 HOST_REFUSED, key or not, and says why', async () => {
    for (const host of [`attacker.example:${port}`, 'attacker.example', `127.0.0.1.attacker.example:${port}`]) {
      const res = await rawRequest(h.base, '/api/v1/recordings', { ...auth(), host });
      expect(res.status, host).toBe(403);
      const problem = JSON.parse(res.body);
      expect(problem.code).toBe('HOST_REFUSED');
      expect(problem.title).toContain('loopback address');
      // An answer of the API: the OpenAPI document describes it.
      checkAnswer('GET', '/recordings', res.status, String(res.headers['content-type']), res.body);
    }
  });

  it('creates nothing for a foreign name: a rebinding page cannot subscribe', async () => {
    const before = (await h.api('/webhooks')).json.data.length;
    const url = new URL(h.base);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/api/v1/webhooks',
          method: 'POST',
          headers: { ...auth(), host: `evil.example:${port}`, 'content-type': 'application/json', 'idempotency-key': 'rebinding-1234' },
          agent: false,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['recording.completed'] }));
    });
    expect(status).toBe(403);
    expect((await h.api('/webhooks')).json.data.length).toBe(before);
  });

  it('answers localhost, loopback addresses and the name it was bound to', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST.:${port}`, `[::1]:${port}`, '127.0.0.1']) {
      const res = await rawRequest(h.base, '/api/v1/recordings?limit=1', { ...auth(), host });
      expect(res.status, host).toBe(200);
    }
  });

  it('leaves the check to the keys when bound beyond loopback (a container is reached by names of its own)', () => {
    expect(apiHostGuard('0.0.0.0')).toBeNull();
    expect(apiHostGuard('::')).toBeNull();
    expect(apiHostGuard('192.168.1.5')).toBeNull();
    const guard = apiHostGuard('localhost');
    expect(() => guard?.({ host: 'evil.example' })).toThrow(ProblemError);
    expect(() => guard?.({ host: 'localhost:4010' })).not.toThrow();
  });
});
