// `replay --wait` (cli.md, deliveries): after replaying, the deliveries list is polled until
// every replayed delivery has left PENDING, or the timeout passes. The list shows at most 50
// rows and has no cursor, so a delivery's state is read from two filtered lists: absent from a
// PENDING list that is not full, it has left PENDING; then it is FAILED if the FAILED list shows
// it, and SUCCEEDED (the only other state) if that list is not full either. What cannot be told
// yet is asked again at the next poll. Polls go through the one client, so they are paced.
import type { Clock } from '../../../core/clock.js';
import { CancelError } from '../../../core/errors.js';
import type { Delivery } from '../../../shared/schemas.js';
import { LIST_LIMIT } from './rounds.js';

/** Between two polls; the client's pacing may add to it. */
export const POLL_INTERVAL_MS = 2000;

export type FinalStatus = 'SUCCEEDED' | 'FAILED' | 'PENDING';

export interface Outcome {
  id: string;
  status: FinalStatus;
  /** The FAILED row, when one was seen: its last answer. */
  row: Delivery | undefined;
}

export interface WaitResult {
  outcomes: Outcome[];
  /** True when the timeout passed with some still PENDING (or not yet told apart). */
  timedOut: boolean;
  waitedMs: number;
}

export interface WaitDeps {
  list: (status: 'PENDING' | 'FAILED') => Promise<Delivery[]>;
  clock: Clock;
  signal: AbortSignal;
  /** Told after each poll how many are still waited for. */
  onPoll?: (left: number) => void;
}

export async function waitForOutcomes(ids: readonly string[], timeoutMs: number, deps: WaitDeps): Promise<WaitResult> {
  const { clock, signal } = deps;
  const started = clock.now();
  const deadline = started + timeoutMs;
  const waiting = new Set(ids);
  const settled = new Map<string, Outcome>();
  const result = (timedOut: boolean): WaitResult => ({
    outcomes: ids.map((id) => settled.get(id) ?? { id, status: 'PENDING', row: undefined }),
    timedOut,
    waitedMs: clock.now() - started,
  });

  for (;;) {
    const pending = await deps.list('PENDING');
    const stillPending = new Set(pending.map((d) => d.id));
    const pendingFull = pending.length >= LIST_LIMIT;
    const left = [...waiting].filter((id) => !stillPending.has(id));
    if (left.length > 0) {
      const failed = await deps.list('FAILED');
      const failedRows = new Map(failed.map((d) => [d.id, d]));
      const failedFull = failed.length >= LIST_LIMIT;
      for (const id of left) {
        const row = failedRows.get(id);
        // Listed PENDING first, FAILED second: one that failed in between is seen as FAILED.
        if (row !== undefined) settled.set(id, { id, status: 'FAILED', row });
        else if (!pendingFull && !failedFull) settled.set(id, { id, status: 'SUCCEEDED', row: undefined });
        else continue;
        waiting.delete(id);
      }
    }
    deps.onPoll?.(waiting.size);
    if (waiting.size === 0) return result(false);
    const now = clock.now();
    if (now >= deadline) return result(true);
    try {
      await clock.sleep(Math.min(POLL_INTERVAL_MS, deadline - now), signal);
    } catch (error) {
      if (signal.aborted) throw new CancelError('interrupted while waiting for the replayed deliveries');
      throw error;
    }
  }
}
