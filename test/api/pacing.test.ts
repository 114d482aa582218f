// The pacing wrapper (src/api/pacing.ts, `paced`) around a counting attempt: a burst of ten,
// then one token per 60/rate seconds, each wait said before it; on a fake clock.
import { describe, expect, it } from 'vitest';
import type { AttemptFn, Outgoing } from '../../src/api/attempt.js';
import { PACING_BURST, paced } from '../../src/api/pacing.js';
import { makeWaits, type WaitMessage } from '../../src/api/waits.js';
import { fakeTime } from '../helpers/clock.js';

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
