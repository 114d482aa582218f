// Client-side pacing (cli.md, Retries and pacing): one process sends at most `--rate` requests
// per minute, in bursts of up to 10, so long listings stay under the API's 120 per minute
// instead of running into 429 and backing off. `paced` is the client's wrapper of an attempt
// that keeps to it, retries included.
import type { AttemptFn } from './attempt.js';
import type { Waits } from './waits.js';

export const PACING_BURST = 10;

/**
 * A token bucket that hands out reservations: each call takes one token, possibly going into
 * debt, and returns how long the caller must wait for its token. Concurrent callers therefore
 * get successive slots instead of all waking at once.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number | undefined;
  private readonly perMs: number;

  constructor(
    ratePerMinute: number,
    private readonly capacity = PACING_BURST,
  ) {
    if (!(ratePerMinute > 0)) throw new RangeError('a token bucket needs a positive rate');
    this.perMs = ratePerMinute / 60_000;
    this.tokens = capacity;
  }

  /** Takes a token; returns the milliseconds to wait before using it (0 when one was there). */
  reserve(now: number): number {
    if (this.updatedAt !== undefined) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.updatedAt) * this.perMs);
    }
    this.updatedAt = now;
    this.tokens -= 1;
    // Rounded up so that the token has surely been refilled when the wait ends.
    return this.tokens >= 0 ? 0 : Math.ceil(-this.tokens / this.perMs - 1e-9);
  }
}

/** `next` with each attempt (retries too) waiting for its token first; `next` itself when unpaced (0). */
export function paced(next: AttemptFn, o: { ratePerMinute: number; now: () => number; waits: Waits }): AttemptFn {
  if (!(o.ratePerMinute > 0)) return next;
  const bucket = new TokenBucket(o.ratePerMinute);
  const reason = `pacing: at most ${o.ratePerMinute} requests per minute (--rate)`;
  return async (out, attempt) => {
    const ms = bucket.reserve(o.now());
    if (ms > 0) {
      o.waits.announce({ ms, reason, attempt, kind: 'pacing' });
      await o.waits.pause(ms, out.signal);
    }
    return next(out, attempt);
  };
}
