// How the long polls of `deliveries watch` and `replay --wait` end and fail (cli.md, deliveries):
// --max-time and --wait-timeout are deadlines for the whole run, a request in flight included
// (a server that answers slowly or never must not hold the run past them), and a poll that
// fails for a reason that passes (429, 5xx, the network) is said and tried again within the
// budget rather than ending the run; any other failure (401, 404, a broken answer) ends it.
import { ApiError, NetworkError } from '../../core/errors.js';
import type { ApiClient } from '../../api/types.js';
import type { Clock } from '../../core/clock.js';

export interface Deadline {
  /** Aborts when the deadline passes: hand it to every request (with the run's own signal). */
  readonly signal: AbortSignal;
  /** Whether the deadline has passed by the clock. */
  passed(): boolean;
  /** Stops the timer. */
  dispose(): void;
}

/**
 * A deadline at `at` (the clock's ms; Infinity: none). The timer is a real one, for a request
 * that hangs; `passed()` reads the clock, so that a run on an injected clock ends by it too.
 */
export function startDeadline(clock: Clock, at: number): Deadline {
  const controller = new AbortController();
  const left = at - clock.now();
  let timer: NodeJS.Timeout | undefined;
  if (Number.isFinite(at)) {
    timer = setTimeout(() => controller.abort(new Error('the deadline passed')), Math.max(0, left));
    // The run ends by itself; a pending deadline must not keep the process alive.
    timer.unref();
  }
  return {
    signal: controller.signal,
    passed: () => controller.signal.aborted || clock.now() >= at,
    dispose: () => clearTimeout(timer),
  };
}

/** A failure of one poll that the next poll may not meet: rate limiting, a server error, the network. */
export function passingPollFailure(error: unknown): error is ApiError | NetworkError {
  if (error instanceof NetworkError) return true;
  return error instanceof ApiError && (error.status === 429 || error.status === 408 || error.status >= 500);
}

/** `client` with `signal` added to every request's own: what lists with the run's signal (knowSubscriptions) stops at the deadline too. */
export function withSignal(client: ApiClient, signal: AbortSignal): ApiClient {
  const both = (own: AbortSignal | undefined): AbortSignal => (own === undefined ? signal : AbortSignal.any([own, signal]));
  return {
    baseUrl: client.baseUrl,
    redactedKey: client.redactedKey,
    request: (o) => client.request({ ...o, signal: both(o.signal) }),
    requestRaw: (o) => client.requestRaw({ ...o, signal: both(o.signal) }),
    close: () => client.close(),
  };
}
