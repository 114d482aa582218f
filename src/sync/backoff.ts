// A command that keeps failing for one recording (cli.md, sync): in --watch it waits 1 minute
// before its next run, then twice as long after each further failure (at most 1 hour); after
// --max-attempts failures in a row it is parked, never run again until --retry-parked. Every
// failure is a `failed` step of the journal, so the waits and the parking outlive the process.
import type { ItemResult } from '../batch/results.js';
import type { ItemWork } from '../batch/runner.js';
import type { Clock } from '../core/clock.js';
import type { Journal, RecordingState } from './journal.js';

export const FIRST_WAIT_MS = 60_000;
export const LONGEST_WAIT_MS = 60 * 60_000;

/** How long a recording waits after its `failures`-th failure in a row. */
export function backoffMs(failures: number): number {
  return Math.min(FIRST_WAIT_MS * 2 ** Math.max(0, failures - 1), LONGEST_WAIT_MS);
}

/** Where one recording of the journal stands, in the words of `rfs sync status`. */
export type Standing =
  /** An answer received and not yet filed: filed next, without running the command. */
  | { state: 'pending'; why: 'answer-to-file' }
  /** Started with no outcome journaled: rfs stopped while it ran, so it may have run. */
  | { state: 'pending'; why: 'may-have-run' }
  | { state: 'failing'; nextTry: number }
  | { state: 'parked' };

export function standingOf(s: RecordingState): Standing {
  if (s.result) return { state: 'pending', why: 'answer-to-file' };
  const f = s.failure;
  // A start after the last failure that left no outcome: that run may have done its work.
  if (f === undefined || s.attempts > f.attempt) return { state: 'pending', why: 'may-have-run' };
  if (f.parked) return { state: 'parked' };
  return { state: 'failing', nextTry: Date.parse(f.at) + backoffMs(f.failures) };
}

export interface BackoffOptions {
  maxAttempts: number;
  retryParked: boolean;
  /** Waits apply in --watch; a run by hand (or cron) is itself the decision to try again. */
  wait: boolean;
  clock: Clock;
  /** Told when a recording is parked. */
  onParked?: (id: string, failures: number) => void;
}

/** The failure policy of one sync process, over its journal. */
export class Backoff {
  /** Recordings left out of the last pass: still waiting, or parked. */
  waiting = 0;
  parked = 0;
  /** With --retry-parked: those parked when the run began, each run once more. */
  private readonly toRetry = new Set<string>();

  constructor(
    private readonly journal: Journal,
    private readonly o: BackoffOptions,
  ) {
    if (o.retryParked) {
      for (const [id, s] of journal.states) if (standingOf(s).state === 'parked') this.toRetry.add(id);
    }
  }

  /** Called once a pass starts: the counts are per pass. */
  startPass(): void {
    this.waiting = 0;
    this.parked = 0;
  }

  /** True for a listed recording that this pass must not run. */
  skip(id: string): boolean {
    const s = this.journal.states.get(id);
    if (s === undefined) return false;
    const standing = standingOf(s);
    if (standing.state === 'parked') {
      // Parked again during this run, it waits for the next --retry-parked like any other.
      if (this.toRetry.delete(id)) return false;
      this.parked += 1;
      return true;
    }
    if (standing.state === 'failing' && this.o.wait && this.o.clock.now() < standing.nextTry) {
      this.waiting += 1;
      return true;
    }
    return false;
  }

  /** The pass's work, with every failure of the command journaled as it is reported. */
  wrap<T extends { id: string }>(work: ItemWork<T>): ItemWork<T> {
    return async (item, run) => {
      const result = await work(item, run);
      if (result !== undefined) this.record(item.id, result);
      return result;
    };
  }

  private record(id: string, result: ItemResult): void {
    // Only the command's own failures: a failed fetch or filing says nothing about the command.
    if (result.ok || result.stage !== 'command' || typeof result.attempt !== 'number') return;
    const before = this.journal.states.get(id)?.failure;
    // --retry-parked gives a parked recording a fresh series of attempts.
    const failures = before === undefined || before.parked ? 1 : before.failures + 1;
    const parked = failures >= this.o.maxAttempts;
    this.journal.append({
      step: 'failed',
      id,
      attempt: result.attempt,
      at: new Date(this.o.clock.now()).toISOString(),
      failures,
      error: { code: result.error?.code ?? 'COMMAND_FAILED', title: result.error?.title ?? 'the command failed' },
      ...(parked ? { parked } : {}),
    });
    if (parked) this.o.onParked?.(id, failures);
  }

  /** For the pass's summary line: what it left out, when it left anything out. */
  summary(): string[] {
    const parts: string[] = [];
    if (this.waiting > 0) parts.push(`${this.waiting} waiting after failures`);
    if (this.parked > 0) parts.push(`${this.parked} parked (--retry-parked runs them again)`);
    return parts;
  }
}

/** What the journal holds at start, for a notice; undefined when it holds nothing. */
export function describePending(journal: Pick<Journal, 'states'>): string | undefined {
  let toFile = 0;
  let mayHaveRun = 0;
  let failing = 0;
  let parked = 0;
  for (const s of journal.states.values()) {
    const standing = standingOf(s);
    if (standing.state === 'pending') {
      if (standing.why === 'answer-to-file') toFile += 1;
      else mayHaveRun += 1;
    } else if (standing.state === 'failing') failing += 1;
    else parked += 1;
  }
  const parts: string[] = [];
  // Only a start with no outcome "may have run": a command that exited with an error did run.
  if (toFile + mayHaveRun > 0) {
    parts.push(
      `${toFile} answer(s) to file without running the command`,
      `${mayHaveRun} recording(s) whose command may have run (run again with RFS_ATTEMPT > 1)`,
    );
  }
  if (failing > 0) parts.push(`${failing} recording(s) whose command failed (run again after a wait in --watch)`);
  if (parked > 0) parts.push(`${parked} parked recording(s) (rfs sync status lists them; --retry-parked runs them again)`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}
