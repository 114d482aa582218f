// The one loop behind every batch of rfs (file --from, deliveries replay, sync): the work of one
// item is passed in, and the rules of cli.md live here once. One result line per item, written
// whole; a refused key (401/403) stops the batch with that exit code, since it would fail every
// later item alike; Ctrl-C ends it with exit 130 and a report of what was done, what was in
// flight and what was not done; exit 8 when any item failed.
//
// Items run one at a time unless `concurrency` says more (sync --concurrency): then up to that
// many run at once, each taking the next item when it ends. Items in flight are kept as a set
// and result lines go through one queue, each written whole, so that what a batch reports does
// not depend on how many items ran at once.
import type { Ui } from '../core/ui.js';
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
  /** Items run at once, at most; default 1. A stop lets the items already running finish. */
  concurrency?: number;
  /**
   * Told of each result as its line is written, in the same order (sync's observers: metrics,
   * /healthz, the JSON event log). Called with the progress line off the screen, as the line is.
   */
  onResult?: (result: ItemResult) => void;
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
  const concurrency = o.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`a batch runs at least one item at a time, not ${concurrency}`);
  const done: T[] = [];
  /** Items whose work has begun and not ended; in flight once they name what they are doing. */
  const started = new Set<{ item: T; doing: string | undefined }>();
  let ok = 0;
  let failed = 0;
  let writing: Promise<void> = Promise.resolve();
  const write = (result: ItemResult): Promise<void> => {
    writing = writing.then(async () => {
      const print = (): Promise<void> => {
        o.onResult?.(result);
        return o.writer.write(result);
      };
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

  const iterator: Iterator<T> | AsyncIterator<T> =
    Symbol.asyncIterator in o.items ? o.items[Symbol.asyncIterator]() : o.items[Symbol.iterator]();
  let exhausted = false;
  /** Set by the first item that stops the batch; the items already running still finish. */
  let stopped: BatchEnd<T> | undefined;
  /** The first throw: the batch ends once every running item has ended. */
  let thrown: { error: unknown } | undefined;
  // One item is taken from the source at a time (an async generator is not to be asked twice
  // at once); the workers take turns.
  let taking: Promise<unknown> = Promise.resolve();
  const take = (): Promise<IteratorResult<T>> => {
    const next = taking.then(() => iterator.next());
    taking = next.catch(() => undefined);
    return next;
  };
  const over = (): boolean => exhausted || stopped !== undefined || thrown !== undefined;

  // Each worker takes the next item when it has finished one: with one worker, items run one
  // after the other, each result written before the next item is taken, as a batch always did.
  const worker = async (): Promise<void> => {
    while (!over()) {
      const next = await take();
      if (next.done === true) {
        exhausted = true;
        return;
      }
      // Ctrl-C after the last item cuts nothing short; before another one, it does.
      if (o.signal.aborted) throw new CancelError('interrupted');
      // Another worker stopped the batch while this one was waiting for its item: it is not run.
      if (stopped !== undefined || thrown !== undefined) return;
      const item = next.value;
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
        stopped ??= { how: 'stopped', because: 'key-refused', after: item, error: result.error };
      } else if (o.failFast === true) {
        stopped ??= { how: 'stopped', because: 'fail-fast', after: item, error: result.error };
      }
    }
  };

  try {
    await Promise.all(
      Array.from({ length: concurrency }, () =>
        worker().catch((error: unknown) => {
          thrown ??= { error };
        }),
      ),
    );
    if (thrown !== undefined) {
      if (isInterrupt(thrown.error, o.signal)) return interrupted();
      throw thrown.error;
    }
    return report(stopped ?? { how: 'finished' });
  } finally {
    // As a for-await loop left early would: the source cleans up (a listing cancels the pages
    // it requested ahead).
    if (!exhausted) await Promise.resolve(iterator.return?.()).catch(() => undefined);
    o.progress?.stop();
  }
}

/**
 * The summary is what a 3 a.m. reader needs most: it goes to stderr even with --quiet, wrapped
 * at words on a terminal as every notice is.
 */
export function writeSummary(ui: Ui, text: string): void {
  ui.say(text);
}
