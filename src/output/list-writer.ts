// Results on stdout, written as they stream in (cli.md, Output): a json array is opened at once
// and closed even when the listing fails midway, so whatever was printed stays valid JSON; every
// write waits for 'drain', so 100,000 items cost no more memory than one page.
import type { Writable } from 'node:stream';
import type { Paged } from '../api/paginate.js';
import type { IO } from '../core/io.js';
import { mapStrings } from '../core/redact.js';
import type { OutputFormat } from '../core/context.js';
import { safeJson } from './safe-json.js';
// Tables (string-width, chalk) are loaded only for table output: json and ndjson never need them.
import type { KeyValueSection } from './key-value.js';
import type { Column } from './table.js';

export interface ListTable<T> {
  columns: readonly Column<T>[];
  color: boolean;
  /** A line under each row (cli.md: a recording's note text with --include content). */
  detail?: (row: T) => string | undefined;
  /** Headers of columns whose value the filter fixes (every row says the same): left out first. */
  fixed?: readonly string[];
  /** The last column's long text wraps at words under itself instead of being cut (doctor's DETAIL). */
  wrapLast?: boolean;
  /**
   * A progress line on stderr while pages are awaited (a spinner on a terminal), taken off the
   * screen while rows are written: a slow first page of an --all never leaves a blank screen.
   */
  progress?: ListProgress;
}

/** What the table writer needs of a progress line (src/batch/progress.ts is one). */
export interface ListProgress {
  update(text: string): void;
  clearedFor<R>(write: () => Promise<R>): Promise<R>;
  stop(): void;
}

/**
 * What a list is written from: a listing of the API (its pages are where a table is laid out
 * again), an array, or any other stream of items.
 */
export type ListSource<T> = Paged<T> | AsyncIterable<T> | Iterable<T>;

export interface JsonOptions<T> {
  /** What json/ndjson print for an item; the item itself by default (unknown fields kept). */
  toJson?: (item: T) => unknown;
}

/** How far a json or ndjson list has come, on the table's progress line (stdout may be a file). */
function countedOn(progress: ListProgress | undefined): { item(): void; stop(): void } {
  let count = 0;
  return {
    item() {
      count += 1;
      progress?.update(`${count} so far, fetching more…`);
    },
    stop() {
      progress?.stop();
    },
  };
}

/** Resolves once `stream` can take more, or rejects if it fails or closes first. */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      // The reader went away (`rfs … | head`): stop producing instead of waiting forever.
      reject(Object.assign(new Error('output closed before everything was written'), { code: 'EPIPE' }));
    };
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** Writes with backpressure: waits for 'drain' whenever the stream's buffer is full. */
export async function writeOut(stream: Writable, text: string): Promise<void> {
  if (stream.destroyed || stream.writableEnded) {
    throw Object.assign(new Error('output closed before everything was written'), { code: 'EPIPE' });
  }
  if (!stream.write(text)) await drained(stream);
}

/**
 * Collects small writes and hands them to the stream in pieces of about its high-water mark
 * (16 KiB) instead of one per item (one system call each when stdout is a file): lines of a
 * page arrive within a few microtasks of each other, and a flush scheduled with setImmediate
 * writes the rest once the producer waits for the network. Each full piece is written at once
 * and waited for, so backpressure and flat memory are kept.
 */
class Coalescer {
  private pending = '';
  private scheduled = false;
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  private readonly limit: number;

  constructor(private readonly stream: Writable) {
    this.limit = stream.writableHighWaterMark || 16 * 1024;
  }

  /** Undefined when nothing needs waiting for: most lines cost no promise at all. */
  push(text: string): Promise<void> | undefined {
    if (this.failure) throw this.failure.error;
    this.pending += text;
    // Not more: into a shell pipe (64 KiB of buffer), larger writes were left half done and
    // queued, and V8 answered the longer-lived pages by growing its young generation: a
    // 70,000-item --all peaked at 108 MB through `| cat` with 64 KiB writes, 82 MB with 16 KiB,
    // at the same speed (bench/README.md).
    if (this.pending.length >= this.limit) return this.flush();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush().catch(() => undefined);
      });
    }
    return undefined;
  }

  /** Everything pushed so far, written; rejects if the stream failed. */
  flush(): Promise<void> {
    const text = this.pending;
    this.pending = '';
    if (text !== '') {
      this.chain = this.chain.then(() => writeOut(this.stream, text));
      this.chain.catch((error: unknown) => {
        this.failure ??= { error };
      });
    }
    return this.chain;
  }
}

function jsonOf<T>(item: T, o: JsonOptions<T> | undefined): unknown {
  const value = o?.toJson ? o.toJson(item) : item;
  // JSON has no undefined; a stray one would otherwise break the array.
  return value === undefined ? null : value;
}

/**
 * A list on stdout in the chosen format; returns how many items were written. When `items`
 * throws, what was received is still printed (json: the array is closed) and the error rethrown.
 */
export async function writeList<T>(
  io: IO,
  format: OutputFormat,
  items: ListSource<T>,
  table: ListTable<T>,
  o?: JsonOptions<T>,
): Promise<number> {
  const out = io.stdout;
  let count = 0;
  if (format === 'ndjson') {
    const batch = new Coalescer(out);
    const progress = countedOn(table.progress);
    try {
      for await (const item of items) {
        const full = batch.push(`${safeJson(jsonOf(item, o))}\n`);
        if (full !== undefined) await full;
        count++;
        progress.item();
      }
    } finally {
      progress.stop();
      // What was printed before an error is still written, then the error goes on.
      await batch.flush();
    }
    return count;
  }

  if (format === 'json') {
    const batch = new Coalescer(out);
    const progress = countedOn(table.progress);
    let failure: { error: unknown } | undefined;
    try {
      for await (const item of items) {
        // The array opens with its first item: a list whose first request fails prints nothing,
        // so `| jq length` cannot read a failure as zero items (cli.md, Output).
        const full = batch.push(`${count === 0 ? '[\n' : ',\n'}${safeJson(jsonOf(item, o))}`);
        if (full !== undefined) await full;
        count++;
        progress.item();
      }
    } catch (error) {
      failure = { error };
    } finally {
      progress.stop();
    }
    try {
      if (count > 0) await batch.push('\n]\n');
      else if (!failure) await batch.push('[]\n');
      await batch.flush();
    } catch (closeError) {
      // stdout itself failed: the first error is the one worth reporting.
      throw failure ? failure.error : closeError;
    }
    if (failure) throw failure.error;
    return count;
  }

  // A table is written page by page as pages arrive (an --all of 20,000 rows shows its first
  // rows at once), each page laid out for the terminal's width of that moment (cli.md).
  const { TableStream, tableWidth } = await import('./table.js');
  const wrap = table.wrapLast === true ? await import('./wrap.js') : undefined;
  const stream = new TableStream(table.columns, {
    color: table.color,
    width: () => tableWidth(io),
    detail: table.detail,
    fixed: table.fixed,
    ...(wrap === undefined ? {} : { wrapLast: (text: string, width: number) => wrap.wrapWords(wrap.words(text), width, '') }),
  });
  const progress = table.progress;
  let failure: { error: unknown } | undefined;
  let pageNo = 0;
  try {
    for await (const page of pagesOf(items)) {
      // An empty list prints nothing: no lone header for a script capturing a terminal to parse.
      const text = stream.page(page.map((item) => laidOut(io, item)));
      await (progress ? progress.clearedFor(() => writeOut(out, text)) : writeOut(out, text));
      count += page.length;
      pageNo += 1;
      progress?.update(`${count} so far (${pageNo} page${pageNo === 1 ? '' : 's'}), fetching more…`);
    }
  } catch (error) {
    failure = { error };
  } finally {
    progress?.stop();
  }
  if (failure) throw failure.error;
  return count;
}

/** Rows of an array laid out together at most: an array has no pages of its own. */
const ARRAY_PAGE_ROWS = 500;

/**
 * The pages of a list, where its source says they end: a listing's own pages (api/paginate.ts),
 * an array in pieces of 500 rows, and any other stream item by item, since it says nothing of
 * where its pages end and a row it has is not to be held back waiting for the next one. When
 * the source fails, the pages before the failure come first, then the error; when the reader
 * stops early (a closed stdout), the source is told, so a listing stops fetching.
 */
async function* pagesOf<T>(items: ListSource<T>): AsyncGenerator<readonly T[]> {
  if ('pages' in items) {
    yield* items.pages();
  } else if (Symbol.asyncIterator in items) {
    for await (const item of items) yield [item];
  } else {
    let page: T[] = [];
    for (const item of items) {
      page.push(item);
      if (page.length >= ARRAY_PAGE_ROWS) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }
}

export interface ResourceView<T> {
  sections: (value: T) => readonly KeyValueSection[];
  color: boolean;
}

/** One resource: pretty JSON (json), one line (ndjson), or a key/value view (table). */
export async function writeResource<T>(io: IO, format: OutputFormat, value: T, view: ResourceView<T>, o?: JsonOptions<T>): Promise<void> {
  if (format === 'json') return writeOut(io.stdout, `${safeJson(jsonOf(value, o), 2)}\n`);
  if (format === 'ndjson') return writeOut(io.stdout, `${safeJson(jsonOf(value, o))}\n`);
  const [{ renderKeyValue }, { tableWidth }] = await Promise.all([import('./key-value.js'), import('./table.js')]);
  return writeOut(io.stdout, renderKeyValue(view.sections(laidOut(io, value)), { color: view.color, width: tableWidth(io) }));
}

/**
 * A value about to be laid out in a table, with the run's secrets already taken out: wrapped
 * or cut, a secret would reach stdout in pieces. json and ndjson need not: stdout's writer sees
 * their strings whole.
 */
function laidOut<T>(io: IO, value: T): T {
  const redact = io.redactText;
  return redact === undefined ? value : (mapStrings(value, redact) as T);
}
