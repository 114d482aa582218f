// The waits of the client's wrappers (retry, pacing, a caller's budget) and what the client tells
// whoever watches: every attempt and every wait on a diagnostics channel, every wait to the
// caller's onWait, and a cancelled wait as a CancelError.
import { channel } from 'node:diagnostics_channel';
import { CancelError } from '../core/errors.js';

/**
 * Every attempt and every wait, for whoever watches a long run (sync --metrics, --log-format
 * json, a budget) without a hook through every caller: `{ method, status, durationMs }` (status
 * null for a network failure) and `{ ms, reason, attempt, kind }`. Free when nobody subscribes.
 */
export const ATTEMPT_CHANNEL = 'rfs:api:attempt';
export const WAIT_CHANNEL = 'rfs:api:wait';
export const attemptChannel = channel(ATTEMPT_CHANNEL);
const waitChannel = channel(WAIT_CHANNEL);

/** What WAIT_CHANNEL publishes before every wait: onWait's argument, and which kind of wait it is. */
export interface WaitMessage {
  ms: number;
  reason: string;
  attempt: number;
  kind: 'pacing' | 'retry';
}

/** What every wrapper's waits go through: the caller's onWait and WAIT_CHANNEL, then the clock. */
export interface Waits {
  announce(wait: WaitMessage): void;
  /** Sleeps on the client's clock; a cancelled run is a CancelError. */
  pause(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

export function makeWaits(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  onWait: ((wait: WaitMessage) => void) | undefined,
): Waits {
  return {
    announce(wait) {
      onWait?.({ ms: wait.ms, reason: wait.reason, attempt: wait.attempt, kind: wait.kind });
      waitChannel.publish(wait);
    },
    async pause(ms, signal) {
      await cancellable(signal, () => sleep(ms, signal));
      if (signal?.aborted) throw cancelled(signal);
    },
  };
}

/** `wait()`, its failure a CancelError when `signal` aborted it. */
export async function cancellable(signal: AbortSignal | undefined, wait: () => Promise<void>): Promise<void> {
  try {
    await wait();
  } catch (error) {
    if (signal?.aborted) throw cancelled(signal);
    throw error;
  }
}

export function cancelled(signal: AbortSignal): CancelError {
  return new CancelError('cancelled', { cause: signal.reason });
}

/**
 * What a wait says on stderr (cli.md, Retries), `leftMs` of it to go: a countdown on a terminal
 * ("retrying in 6s"), a line elsewhere. Pacing (--rate) is no failure: it says it is waiting,
 * never that it retries.
 */
export function waitText(wait: WaitMessage, leftMs: number, o: { maxAttempts: number; countdown: boolean }): string {
  const seconds = o.countdown ? `${Math.ceil(leftMs / 1000)}s` : `${(leftMs / 1000).toFixed(1)}s`;
  if (wait.kind === 'pacing') return `${wait.reason}: waiting ${seconds}`;
  const of = `(attempt ${wait.attempt}/${o.maxAttempts})`;
  return o.countdown ? `${wait.reason}: retrying in ${seconds} ${of}` : `${wait.reason}: waiting ${seconds} before retrying ${of}`;
}
