// watch's budget (cli.md, deliveries, "watch's budget"), kept by `replay --wait` too: the integration shares
// the workspace's 120 requests a minute with whatever else runs (sync), so watch keeps to a
// budget of its own, by default 12 requests a minute. Every attempt it makes counts, retries
// included (the client tells them on ATTEMPT_CHANNEL and waits for `slot` before each one,
// AttemptGate), and none starts while the last 60 s
// already hold the budget's worth: so no 60 s of the server's log ever shows more from one
// watch. Polls are spaced by what the last one cost, so that the interval watch shows is the one
// it keeps. A 429 halves the budget for as long as the server asks and then some, and says so.
import { channel } from 'node:diagnostics_channel';
import { ATTEMPT_CHANNEL } from '../../api/client.js';
import type { ApiClient } from '../../api/types.js';
import type { Clock } from '../../core/clock.js';
import { WORKSPACE_REQUESTS_PER_MINUTE } from '../../shared/api-limits.js';

/** A budget above the workspace's whole limit would only meet 429s. */
export const MAX_BUDGET = WORKSPACE_REQUESTS_PER_MINUTE;
/**
 * The server's minute and a second more: the server counts and logs a request a little after
 * the client has its answer when it is busy (a few ms, up to hundreds), so a window of exactly
 * 60 s let one poll's first request into the server's minute of the one before (13 requests
 * in a minute of the sandbox's log at a budget of 12).
 */
const WINDOW_MS = 61_000;
/** How long a 429 keeps the budget lowered, at least. */
const SLOW_MS = 5 * 60_000;

export interface Throttled {
  /** The budget it now keeps, requests a minute. */
  perMinute: number;
  /** Until when (the clock's ms). */
  until: number;
}

export class Budget {
  /**
   * When each attempt of the window (WINDOW_MS) was answered, oldest first: the end, not the
   * start, since the server counts and logs a request between the two, never before it is sent.
   */
  private readonly sent: number[] = [];
  private lowered: Throttled | undefined;
  /** Attempts since the last call to `take()`'s counter reset (one poll's cost). */
  private counted = 0;
  private readonly onAttempt = (message: unknown): void => {
    const { status } = message as { status: number | null };
    const now = this.clock.now();
    this.sent.push(now);
    this.counted += 1;
    this.prune(now);
    if (status === 429) this.throttle(now);
  };

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Counts the attempts of this process from now on; returns the way to stop. */
  listen(): () => void {
    const ch = channel(ATTEMPT_CHANNEL);
    ch.subscribe(this.onAttempt);
    return () => ch.unsubscribe(this.onAttempt);
  }

  /** The budget kept now: lowered after a 429. */
  current(now = this.clock.now()): number {
    if (this.lowered !== undefined && now >= this.lowered.until) this.lowered = undefined;
    return this.lowered?.perMinute ?? this.perMinute;
  }

  /** Set while a 429 keeps the budget lowered. */
  throttled(now = this.clock.now()): Throttled | undefined {
    this.current(now);
    return this.lowered;
  }

  /** The attempts counted since the last call, and the count starts again (one poll's cost). */
  takeCount(): number {
    const n = this.counted;
    this.counted = 0;
    return n;
  }

  /** Waits until one more attempt fits in the last 60 s. */
  async slot(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      this.prune(now);
      const limit = this.current(now);
      if (this.sent.length < limit) return;
      // The oldest attempt that must leave the window before one more fits.
      const oldest = this.sent[this.sent.length - limit] ?? now;
      await this.clock.sleep(Math.max(1, oldest + WINDOW_MS - now + 1), signal);
    }
  }

  /** How long to wait after a poll of `requests` attempts so that polls like it keep to the budget, at least `minimum`. */
  spacing(requests: number, minimum: number, now = this.clock.now()): number {
    return Math.max(minimum, Math.ceil((Math.max(1, requests) * WINDOW_MS) / this.current(now)));
  }

  private throttle(now: number): void {
    const perMinute = Math.max(1, Math.floor(this.current(now) / 2));
    this.lowered = { perMinute, until: now + SLOW_MS };
  }

  private prune(now: number): void {
    while (this.sent.length > 0 && (this.sent[0] ?? now) <= now - WINDOW_MS) this.sent.shift();
  }
}

/** `client` with every attempt of every request (retries too) waiting for a slot in the budget first. */
export function withinBudget(client: ApiClient, budget: Budget): ApiClient {
  const gate = (signal: AbortSignal | undefined): Promise<void> => budget.slot(signal);
  return {
    baseUrl: client.baseUrl,
    redactedKey: client.redactedKey,
    request: (o) => client.request({ ...o, beforeAttempt: gate }),
    requestRaw: (o) => client.requestRaw({ ...o, beforeAttempt: gate }),
    close: () => client.close(),
  };
}
