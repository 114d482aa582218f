// The pacing wrapper (src/api/pacing.ts, `paced`) around a counting attempt: a burst of ten,
// then one token per 60/rate seconds, each wait said before it; on a fake clock.
import { describe, expect, it } from 'vitest';
import type { AttemptFn, Outgoing } from '../../src/api/attempt.js';
import { PACING_BURST, paced } from '../../src/api/pacing.js';
import { makeWaits, type WaitMessage, waitText } from '../../src/api/waits.js';
import { fakeTime } from '../helpers/clock.js';
import { problem, useScenario } from './support.js';

const out: Outgoing = {
  method: 'GET',
  path: '/recordings',
  target: '/api/v1/recordings',
  headers: {},
  body: undefined,
  signal: undefined,
  beforeAttempt: undefined,
};

function pacedAt(ratePerMinute: number) {
  const time = fakeTime();
  const sentAt: number[] = [];
  const told: WaitMessage[] = [];
  const next: AttemptFn = async () => {
    sentAt.push(time.now);
    return { result: { ok: true, status: 200, statusText: 'OK', headers: {}, body: undefined, requestId: null }, durationMs: 0 };
  };
  const waits = makeWaits(time.clock.sleep, undefined);
  const attempt = paced(next, { ratePerMinute, now: time.clock.now, waits: { announce: (w) => told.push(w), pause: waits.pause } });
  return { attempt, next, sentAt, told, time };
}

describe('paced', () => {
  it('sends a burst at once, then one attempt per 60/rate seconds, saying each wait and its attempt', async () => {
    const p = pacedAt(60);
    for (let n = 1; n <= PACING_BURST + 2; n++) await p.attempt(out, n);
    const start = p.sentAt[0] ?? 0;
    expect(p.sentAt.slice(0, PACING_BURST).every((t) => t === start)).toBe(true);
    expect(p.sentAt.slice(PACING_BURST).map((t) => t - start)).toEqual([1_000, 2_000]);
    expect(p.told).toEqual([
      { ms: 1_000, reason: 'pacing: at most 60 requests per minute (--rate)', attempt: PACING_BURST + 1, kind: 'pacing' },
      { ms: 1_000, reason: 'pacing: at most 60 requests per minute (--rate)', attempt: PACING_BURST + 2, kind: 'pacing' },
    ]);
  });

  it('is the attempt itself at --rate 0', () => {
    const p = pacedAt(0);
    expect(p.attempt).toBe(p.next);
  });
});

// cli.md, Retries: a wait says why and for how long. A pacing wait is no retry: nothing failed.
describe('what a wait says', () => {
  const scenario = useScenario();

  it('a pacing wait says it is waiting; a wait after a 503 says it retries', async () => {
    for (let i = 0; i < PACING_BURST + 1; i++) scenario.server.queue({ body: {} });
    const busy = problem(503, 'UNAVAILABLE', 'busy');
    scenario.server.queue({ ...busy, headers: { ...busy.headers, 'retry-after': '6' } }, { body: {} });
    const told: WaitMessage[] = [];
    const client = scenario.client({ ratePerMinute: 10, onWait: (w) => told.push(w) });
    for (let i = 0; i < PACING_BURST + 2; i++) await client.request({ method: 'GET', path: '/recordings', schema: null });

    const [pacing, retry] = [told.find((w) => w.kind === 'pacing'), told.find((w) => w.kind === 'retry')];
    expect(pacing).toEqual({ ms: 6_000, reason: 'pacing: at most 10 requests per minute (--rate)', attempt: 1, kind: 'pacing' });
    expect(retry).toMatchObject({ reason: 'HTTP 503, the server asked to wait 6 s', attempt: 2, kind: 'retry' });
    if (pacing === undefined || retry === undefined) return;

    const terminal = { maxAttempts: 6, countdown: true };
    const line = { maxAttempts: 6, countdown: false };
    expect(waitText(pacing, 6_000, terminal)).toBe('pacing: at most 10 requests per minute (--rate): waiting 6s');
    expect(waitText(pacing, 6_000, line)).toBe('pacing: at most 10 requests per minute (--rate): waiting 6.0s');
    expect(waitText(retry, 6_000, terminal)).toBe('HTTP 503, the server asked to wait 6 s: retrying in 6s (attempt 2/6)');
    expect(waitText(retry, 6_000, line)).toBe('HTTP 503, the server asked to wait 6 s: waiting 6.0s before retrying (attempt 2/6)');
  });
});
