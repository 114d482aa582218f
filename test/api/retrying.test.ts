// The retry wrapper (src/api/retrying.ts) around a scripted attempt: how many attempts, the waits
// it chose and said, the -v lines, and when it stops; no server, on a fake clock.
import { describe, expect, it } from 'vitest';
import type { Attempt, AttemptFn, Outgoing } from '../../src/api/attempt.js';
import { SendLog } from '../../src/api/retry.js';
import { withRetries } from '../../src/api/retrying.js';
import { CancelError } from '../../src/core/errors.js';
import { makeWaits, type WaitMessage } from '../../src/api/waits.js';
import { fakeTime } from '../helpers/clock.js';

const KEY = 'service_pk_retrying_0123456789abcdef';

function outgoing(o: Partial<Outgoing> = {}): Outgoing {
  return {
    method: 'GET',
    path: '/recordings',
    target: '/api/v1/recordings',
    headers: {},
    body: undefined,
    signal: undefined,
    beforeAttempt: undefined,
    ...o,
  };
}

const ok: Attempt = { ok: true, status: 200, statusText: 'OK', headers: {}, body: Buffer.from('{}'), requestId: 'req_ok' };
const status = (code: number): Attempt => ({
  ok: false,
  failure: { kind: 'status', status: code },
  error: { code: 'X', description: 'x', timedOut: false, cause: undefined },
  outcome: `${code} X`,
  requestId: null,
});

/** An attempt that answers each of `script` in turn, and records which attempt numbers it was asked for. */
function scripted(script: Attempt[]): { next: AttemptFn; asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    next: async (_out, attempt) => {
      asked.push(attempt);
      const result = script.shift();
      if (result === undefined) throw new Error('more attempts than scripted');
      return { result, durationMs: 7 };
    },
  };
}

function retrying(script: Attempt[], maxRetries = 5) {
  const time = fakeTime();
  const told: WaitMessage[] = [];
  const lines: string[] = [];
  const { next, asked } = scripted(script);
  const waits = makeWaits(time.clock.sleep, undefined);
  const exchange = withRetries(next, {
    maxRetries,
    now: time.clock.now,
    random: () => 0.5,
    sendLog: new SendLog(),
    waits: { announce: (w) => told.push(w), pause: waits.pause },
    log: (line) => lines.push(line),
    apiKey: KEY,
  });
  return { exchange, asked, told, lines, time };
}

describe('withRetries', () => {
  it('attempts again after a retryable failure, numbering each attempt, and says each wait before it', async () => {
    const r = retrying([status(503), status(502), ok]);
    const { result, attempts } = await r.exchange(outgoing());
    expect(result.ok).toBe(true);
    expect(attempts).toBe(3);
    expect(r.asked).toEqual([1, 2, 3]);
    // Full jitter with random() = 0.5: half of 1 s, then half of 2 s.
    expect(r.time.waits).toEqual([500, 1000]);
    expect(r.told.map((w) => [w.ms, w.attempt, w.kind])).toEqual([
      [500, 2, 'retry'],
      [1000, 3, 'retry'],
    ]);
    expect(r.lines).toEqual([
      'GET /api/v1/recordings → 503 X · 7 ms · attempt 1/6 · retry in 0.5 s',
      'GET /api/v1/recordings → 502 X · 7 ms · attempt 2/6 · retry in 1 s',
      'GET /api/v1/recordings → 200 · 7 ms · request req_ok · attempt 3/6',
    ]);
  });

  it('stops at a final status without waiting, and after max retries with the plan that gave up', async () => {
    const final = retrying([status(404)]);
    expect(await final.exchange(outgoing())).toMatchObject({ attempts: 1, plan: { retry: false, because: 'final' } });
    expect(final.time.waits).toEqual([]);
    const exhausted = retrying([status(503), status(503), status(503)], 2);
    expect(await exhausted.exchange(outgoing())).toMatchObject({ attempts: 3, plan: { retry: false, because: 'exhausted' } });
    expect(exhausted.lines.at(-1)).toMatch(/attempt 3\/3 · giving up$/);
  });

  it('does not send a POST without an Idempotency-Key again after a 5xx', async () => {
    const r = retrying([status(503)]);
    const out = outgoing({ method: 'POST', path: '/webhooks/wh_1/test', target: '/api/v1/webhooks/wh_1/test' });
    expect(await r.exchange(out)).toMatchObject({ attempts: 1, plan: { retry: false, because: 'not-idempotent' } });
  });

  it('stops before the next attempt once the signal is aborted, with a CancelError', async () => {
    const controller = new AbortController();
    const r = retrying([status(503), ok]);
    const exchange = r.exchange(outgoing({ signal: controller.signal }));
    // Aborted during the first retry's wait: no second attempt.
    controller.abort();
    await expect(exchange).rejects.toBeInstanceOf(CancelError);
    expect(r.asked).toEqual([1]);
  });
});
