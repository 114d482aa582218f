// The one loop behind every batch of rfs (file --from, deliveries replay, sync): the work of one
// item is passed in, and the rules of cli.md live here once. One result line per item, written
// whole; a refused key (401/403) stops the batch with that exit code, since it would fail every
// later item alike; Ctrl-C ends it with exit 130 and a report of what was done, what was in
// flight and what was not done; exit 8 when any item failed.
//
// Items run one at a time. Items in flight are kept as a set and result lines go through one
// queue, so that running several at once later changes the loop, not what it reports.
import type { IO } from '../core/io.js';
import { CancelError, EXIT, exitCodeForStatus } from '../core/errors.js';
import type { Progress } from './progress.js';
import type { ItemError, ItemResult, ResultWriter } from './results.js';

/** What the work of one item tells the runner while it runs. */
export interface ItemRun {
  /**
   * Names what the item is doing now that may take effect outside rfs (a request sent, a
   * command run), e.g. "replaying dlv_2". From then on the item is in flight: if Ctrl-C comes
   * before it ends, the summary names it as something that may have happened.
   */
  doing(what: string): void;
}

/**
 * The work of one item: its result line, or undefined for an item skipped without one (a blank
 * input line). A failure is a result with `ok: false`, not a throw: a throw ends the batch
 * (Ctrl-C, or a fault that would fail every item, such as a journal that cannot be written).
 */
export type ItemWork<T> = (item: T, run: ItemRun) => Promise<ItemResult | undefined>;

export interface BatchOptions<T> {
  items: Iterable<T> | AsyncIterable<T>;
  work: ItemWork<T>;
  writer: ResultWriter;
  signal: AbortSignal;
  /** Taken off the screen for each result line, and stopped when the batch ends. */
  progress?: Progress;
  /** Stop after the first failed item. */
  failFast?: boolean;
  /** Stop when the service refuses the key (401/403); default true. */
  stopWhenKeyRefused?: boolean;
}

export interface InFlight<T> {
  item: T;
  doing: string;
}

export type BatchEnd<T> =
  | { how: 'finished' }
  | { how: 'stopped'; because: 'key-refused' | 'fail-fast'; after: T; error: ItemError | undefined }
  /** `inFlight` holds the items that may have taken effect; an item started but not in flight did not. */
  | { how: 'interrupted'; inFlight: InFlight<T>[] };

export interface BatchReport<T> {
  end: BatchEnd<T>;
  /** Items whose result line was written (or that were skipped), in the order they finished. */
  done: T[];
  ok: number;
  failed: number;
  /** 130 when interrupted, the refusal's code (3) when the key was refused, 8 when any item failed, else 0. */
  exitCode: number;
}

/** A thrown Ctrl-C, and any failure that came with it, ends the batch as interrupted. */
function isInterrupt(error: unknown, signal: AbortSignal): boolean {
  return error instanceof CancelError || signal.aborted;
}

export async function runBatch<T>(o: BatchOptions<T>): Promise<BatchReport<T>> {
  const done: T[] = [];
  /** Items whose work has begun and not ended; in flight once they name what they are doing. */
  const started = new Set<{ item: T; doing: string | undefined }>();
  let ok = 0;
  let failed = 0;
  let writing: Promise<void> = Promise.resolve();
  const write = (result: ItemResult): Promise<void> => {
    writing = writing.then(async () => {
      const print = (): Promise<void> => o.writer.write(result);
      await (o.progress ? o.progress.clearedFor(print) : print());
      if (result.ok) ok += 1;
      else failed += 1;
    });
    return writing;
  };
  const report = (end: BatchEnd<T>): BatchReport<T> => {
    let exitCode: number = failed > 0 ? EXIT.BATCH_FAILED : EXIT.OK;
    if (end.how === 'interrupted') exitCode = EXIT.INTERRUPTED;
    if (end.how === 'stopped' && end.because === 'key-refused' && end.error?.status != null) exitCode = exitCodeForStatus(end.error.status);
    return { end, done, ok, failed, exitCode };
  };
  const interrupted = (): BatchReport<T> =>
    report({
      how: 'interrupted',
      inFlight: [...started].flatMap((s) => (s.doing === undefined ? [] : [{ item: s.item, doing: s.doing }])),
    });

  try {
    for await (const item of o.items) {
      if (o.signal.aborted) throw new CancelError('interrupted');
      const state: { item: T; doing: string | undefined } = { item, doing: undefined };
      started.add(state);
      const result = await o.work(item, {
        doing: (what) => {
          state.doing = what;
        },
      });
      // A request cut short by Ctrl-C fails: that is the interruption, not the item's failure.
      if (result !== undefined && !result.ok && o.signal.aborted) throw new CancelError('interrupted');
      started.delete(state);
      if (result !== undefined) await write(result);
      done.push(item);
      if (result === undefined || result.ok) continue;
      const status = result.error?.status;
      if (o.stopWhenKeyRefused !== false && (status === 401 || status === 403)) {
        return report({ how: 'stopped', because: 'key-refused', after: item, error: result.error });
      }
      if (o.failFast === true) return report({ how: 'stopped', because: 'fail-fast', after: item, error: result.error });
    }
    return report({ how: 'finished' });
  } catch (error) {
    if (isInterrupt(error, o.signal)) return interrupted();
    throw error;
  } finally {
    o.progress?.stop();
  }
}

/** The summary is what a 3 a.m. reader needs most: it goes to stderr even with --quiet. */
export function writeSummary(io: IO, text: string): void {
  io.stderr.write(`${text}\n`);
}
