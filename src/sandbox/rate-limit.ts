// Request rate per workspace (api.md, Limits: 120 requests per minute per workspace).
//
// Choice: a token bucket, not a fixed window. Each workspace holds at most `limit` tokens and
// earns `limit` tokens per `windowSeconds`, continuously. So "N per window" holds over any
// window, and a client that paces itself with a token bucket of the same rate (burst ≤ N) is
// never refused, while a fixed window would refuse a client whose bursts straddle a boundary.
// A refusal says in Retry-After the whole seconds until one token is back (at least 1).

interface Bucket {
  tokens: number;
  at: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  /** limit 0 turns limiting off. */
  constructor(
    private readonly limit: number,
    windowSeconds: number,
  ) {
    this.perMs = limit / (windowSeconds * 1000);
  }

  take(workspace: string, now: number): RateDecision {
    if (this.limit === 0) return { ok: true };
    let bucket = this.buckets.get(workspace);
    if (!bucket) {
      bucket = { tokens: this.limit, at: now };
      this.buckets.set(workspace, bucket);
    }
    bucket.tokens = Math.min(this.limit, bucket.tokens + Math.max(0, now - bucket.at) * this.perMs);
    bucket.at = now;
    // A hair of tolerance: float sums must not refuse a client that paced itself exactly.
    if (bucket.tokens >= 1 - 1e-9) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    const waitMs = (1 - bucket.tokens) / this.perMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  reset(): void {
    this.buckets.clear();
  }
}
