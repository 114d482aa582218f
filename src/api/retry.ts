// Retry policy of the one HTTP client (cli.md, Retries and pacing): which failures are retried
// and how long to wait before each retry. Pure functions of their inputs; time and randomness
// are passed in, so tests can assert the waits chosen.
import { CLOSED_BY_SERVER } from './transport.js';

/** 429 and the transient 5xx; every other status (400, 401, 403, 404, 409, 415, …) is final. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 30_000;
/** cli.md, Retries: a Retry-After sets the wait up to this; asking for more waits this long. */
export const MAX_RETRY_AFTER_MS = 120_000;
/** api.md, Limits: 120 requests per minute per workspace, so a 429's window is one minute. */
export const RATE_WINDOW_MS = 60_000;

/** Full jitter: a random time in [0, min(cap, base × 2^(n−1))] before retry n (n = 1, 2, …). */
export function backoffMs(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * ceiling);
}

/**
 * A Retry-After value (RFC 9110: delay-seconds or an HTTP date) as milliseconds from `now`;
 * undefined when absent or unreadable, so the ordinary backoff applies.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  // Only something that looks like a date (`Wed, 21 Oct 2015 07:28:00 GMT`): Date.parse would
  // also read `-3` as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What went wrong in one attempt, as far as the retry policy cares. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfter?: string | string[] | undefined }
  | { kind: 'network'; retryable: boolean; reason: string; code: string };

export type RetryPlan = { retry: true; ms: number; reason: string } | { retry: false; because: 'final' | 'exhausted' | 'not-idempotent' };

export interface PlanInput {
  failure: AttemptFailure;
  /** The number of the retry that would follow (1 for the retry after the first attempt). */
  retry: number;
  maxRetries: number;
  now: number;
  random: () => number;
  /** When this client sent its oldest request of the last minute (see SendLog). */
  oldestRecentSend: number | undefined;
  /** Whether sending the request again cannot do a second thing (api/idempotency.ts, `isIdempotent`). */
  idempotent: boolean;
}

/**
 * The one retry plan (cli.md, Retries and pacing): whether a failed attempt is sent again, and
 * after how long. A request that is not idempotent (a POST without an Idempotency-Key, other
 * than a filing) is sent again only after a failure that proves the server never carried it out.
 */
export function planRetry(input: PlanInput): RetryPlan {
  const plan = planWait(input);
  if (plan.retry && !input.idempotent && !neverProcessed(input.failure)) return { retry: false, because: 'not-idempotent' };
  return plan;
}

/**
 * A 429 (refused before it was processed), or no connection at all: a refused connection or a
 * name that does not resolve. Retrying a POST after these is safe, as Stripe's clients do; after
 * a 5xx, a reset or a timeout the server may have done it already.
 */
function neverProcessed(failure: AttemptFailure): boolean {
  if (failure.kind === 'status') return failure.status === 429;
  return NOT_CONNECTED.has(failure.code);
}

const NOT_CONNECTED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

function planWait(input: PlanInput): RetryPlan {
  const { failure, retry } = input;
  const retryable = failure.kind === 'status' ? RETRYABLE_STATUSES.has(failure.status) : failure.retryable;
  if (!retryable) return { retry: false, because: 'final' };
  if (retry > input.maxRetries) return { retry: false, because: 'exhausted' };

  const jitter = backoffMs(retry, input.random);
  if (failure.kind === 'network') return { retry: true, ms: jitter, reason: failure.reason };

  const asked = parseRetryAfter(failure.retryAfter, input.now);
  if (asked !== undefined) {
    // A server asking for days (or a garbled 999999999) still gets a retry, after the cap.
    if (asked > MAX_RETRY_AFTER_MS) {
      return {
        retry: true,
        ms: MAX_RETRY_AFTER_MS,
        reason: `HTTP ${failure.status}, the server asked to wait ${formatSeconds(asked)} (rfs waits at most ${formatSeconds(MAX_RETRY_AFTER_MS)})`,
      };
    }
    return { retry: true, ms: asked, reason: `HTTP ${failure.status}, the server asked to wait ${formatSeconds(asked)}` };
  }
  if (failure.status === 429) {
    // The server's one-minute window opened no later than our oldest request in it, so a new
    // window can open no later than 60 s after that request.
    const windowOpens = input.oldestRecentSend === undefined ? 0 : input.oldestRecentSend + RATE_WINDOW_MS - input.now;
    return { retry: true, ms: Math.max(jitter, windowOpens), reason: 'rate limited (HTTP 429): waiting for the next one-minute window' };
  }
  return { retry: true, ms: jitter, reason: `HTTP ${failure.status}` };
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1_000;
  return `${Number(seconds.toFixed(seconds < 10 ? 2 : 1))} s`;
}

/** When this client sent each request of the last minute, for the 429 window above. */
export class SendLog {
  private readonly times: number[] = [];

  record(now: number): void {
    this.times.push(now);
    this.prune(now);
  }

  oldestWithin(now: number): number | undefined {
    this.prune(now);
    return this.times[0];
  }

  private prune(now: number): void {
    while (this.times.length > 0 && (this.times[0] as number) <= now - RATE_WINDOW_MS) this.times.shift();
  }
}

/** A connection-level failure: its code, a phrase for people, and whether to retry it. */
export interface NetworkFailure {
  code: string;
  description: string;
  retryable: boolean;
}

const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host name not found (DNS)',
  EAI_AGAIN: 'host name lookup failed (DNS)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  EHOSTDOWN: 'host down',
  [CLOSED_BY_SERVER]: 'connection closed by the server',
};

/**
 * Classifies an error of the transport (transport.ts). Undefined means "not a network failure" (a bug, such
 * as an invalid header value), which the client lets through unchanged.
 */
export function classifyNetworkError(error: unknown): NetworkFailure | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  const known = CONNECTION_FAILURES[code];
  if (known !== undefined) return { code, description: known, retryable: true };
  // A certificate or TLS failure will not fix itself in a few seconds: report it at once.
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) {
    return { code, description: 'TLS failure', retryable: false };
  }
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects fail with an AggregateError of one error per address tried.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  if (e.cause !== undefined && e.cause !== error) return errorCode(e.cause);
  return undefined;
}
