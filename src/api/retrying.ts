// Retry (cli.md, Retries and pacing) as a wrapper around one attempt: attempts until one answers
// 2xx or the one plan (retry.ts, `planRetry`) gives up, with the -v line of each attempt and the
// wait before each retry. A POST is sent again only when the contract makes a repeat harmless.
import type { Attempt, AttemptFn, Outgoing } from './attempt.js';
import { isIdempotent } from './idempotency.js';
import { planRetry, type RetryPlan, type SendLog } from './retry.js';
import { describeWait, formatAttemptLine } from './verbose.js';
import { cancelled, type Waits } from './waits.js';

export interface RetryOptions {
  /** Retries after the first attempt, for retryable failures only. */
  maxRetries: number;
  now: () => number;
  random: () => number;
  /** When this client sent each request of the last minute: a 429's window opens from the oldest. */
  sendLog: SendLog;
  waits: Waits;
  /** Verbose: one line per attempt, the key redacted. */
  log?: ((line: string) => void) | undefined;
  apiKey: string;
}

/** How a request ended: its last attempt, how many were made, and why the last was not retried. */
export interface Exchange {
  result: Attempt;
  attempts: number;
  plan?: RetryPlan;
}

/** `next` attempted until one answers 2xx or the retry plan gives up; never throws for an answer. */
export function withRetries(next: AttemptFn, o: RetryOptions): (out: Outgoing) => Promise<Exchange> {
  const attempts = o.maxRetries + 1;
  const logAttempt = (
    out: Outgoing,
    fields: { outcome: string; durationMs: number; requestId: string | null; attempt: number; next?: string },
  ): void => {
    const { method, target, headers } = out;
    o.log?.(formatAttemptLine({ method, target, attempts, idempotencyKey: headers['idempotency-key'], ...fields }, o.apiKey));
  };
  return async (out) => {
    const { signal } = out;
    const idempotent = isIdempotent(out.method, out.path, out.headers);
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelled(signal);
      const { result, durationMs } = await next(out, attempt);
      if (result.ok) {
        logAttempt(out, { outcome: String(result.status), durationMs, requestId: result.requestId, attempt });
        return { result, attempts: attempt };
      }
      const at = o.now();
      const plan = planRetry({
        failure: result.failure,
        retry: attempt,
        maxRetries: o.maxRetries,
        now: at,
        random: o.random,
        oldestRecentSend: o.sendLog.oldestWithin(at),
        idempotent,
      });
      const then = plan.retry ? describeWait(plan.ms) : whyNotRetried(plan);
      logAttempt(out, { outcome: result.outcome, durationMs, requestId: result.requestId, attempt, ...(then ? { next: then } : {}) });
      if (!plan.retry) return { result, attempts: attempt, plan };
      o.waits.announce({ ms: plan.ms, reason: plan.reason, attempt: attempt + 1, kind: 'retry' });
      await o.waits.pause(plan.ms, signal);
    }
  };
}

/** The end of the -v line of an attempt that is not sent again (a final status says nothing more). */
function whyNotRetried(plan: Extract<RetryPlan, { retry: false }>): string | undefined {
  switch (plan.because) {
    case 'exhausted':
      return 'giving up';
    case 'not-idempotent':
      return 'not retrying: a POST without an Idempotency-Key may already have been carried out';
    case 'final':
      return undefined;
  }
}
