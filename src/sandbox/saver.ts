// --data kept durable (sandbox.md, Durability of --data): a change is on disk before the answer
// that acknowledges it goes out. Group commit: changes are noted as they happen; one flush, begun
// on the next turn of the event loop, appends every change noted until then to the journal as
// one line and fdatasyncs it, and the answers of all of them wait for that one flush
// (durable()). Changes made while a flush runs go into the next one.
//
// Compaction rewrites the data file whole (the one atomic write, core/atomic-write.ts) and
// starts a new journal that names it: at start, after a state was replaced (reset, restore,
// PUT /_sandbox/state), when the journal has grown larger than the data file (and 8 MB), after
// 200 ms without a change, after a failed write, and at shutdown, when the journal is removed.
// A SIGKILL at any point leaves files that load (journal.ts says why).
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../core/atomic-write.js';
import { batchLine, isEmptyBatch, journalHeader, journalPath, type JournalBatch } from './journal.js';
import type { StoredState } from './persistence.js';
import type { Change } from './types.js';

const IDLE_COMPACTION_MS = 200;
const MIN_COMPACTION_BYTES = 8 * 1024 * 1024;

/** What changed since the last flush: ids by kind. */
export type PendingChanges = Record<Change['kind'], Set<string>>;

/** Where the saver reads the state from when it flushes. */
export interface StateSource {
  snapshot(): StoredState;
  /** The changed entities as they stand now (a subscription that is gone is listed as removed). */
  batch(changes: PendingChanges): JournalBatch;
}

const noChanges = (): PendingChanges => ({ recording: new Set(), subscription: new Set(), delivery: new Set(), idempotency: new Set() });

interface Flush {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function newFlush(): Flush {
  let resolve = (): void => undefined;
  let reject = (_error: unknown): void => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A flush nobody waits on (a delivery attempt's) must not fail as an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export class Saver {
  private pending = noChanges();
  /** The next flush: what was noted since the last one began; null when nothing was. */
  private next: Flush | null = null;
  /** The flush being written. */
  private current: Flush | null = null;
  private running = false;
  /** The data file must be rewritten whole: true from the start until the first compaction. */
  private compactNext = true;
  private journal: FileHandle | null = null;
  private journalBytes = 0;
  private snapshotBytes = 0;
  private flushesSinceCompaction = 0;
  private idle: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly source: StateSource,
    private readonly log: (line: string) => void,
  ) {}

  /** One entity changed. */
  note(change: Change): void {
    this.pending[change.kind].add(change.id);
    this.request();
  }

  /** The state was replaced as a whole: the next flush rewrites the data file. */
  everything(): void {
    this.compactNext = true;
    this.request();
  }

  /**
   * Settles once every change noted so far is on disk; rejects when writing it failed. Null when
   * nothing is waiting to be written, so that an answer that changed nothing is not held up.
   */
  durable(): Promise<void> | null {
    return (this.next ?? this.current)?.promise ?? null;
  }

  private request(): void {
    clearTimeout(this.idle);
    if (this.closed || this.next) return;
    this.next = newFlush();
    // Begun on the next turn of the event loop: every request handled in this one joins it.
    if (!this.running) setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    while (this.next) {
      const flush = this.next;
      this.next = null;
      this.current = flush;
      const changes = this.pending;
      this.pending = noChanges();
      try {
        if (this.compactNext || this.journal === null || this.journalBytes > Math.max(MIN_COMPACTION_BYTES, this.snapshotBytes)) {
          await this.compact();
        } else {
          await this.append(changes);
        }
        flush.resolve();
      } catch (error) {
        // Rewriting the whole file next time also covers what this flush held; the journal may
        // end with part of a line, which only a rewrite makes safe to append to again.
        this.compactNext = true;
        this.log(`could not save the data file ${this.file}: ${(error as Error).message}`);
        flush.reject(error);
      }
    }
    this.current = null;
    this.running = false;
    if (!this.closed && (this.flushesSinceCompaction > 0 || this.compactNext)) {
      this.idle = setTimeout(() => this.everything(), IDLE_COMPACTION_MS);
      this.idle.unref();
    }
  }

  private async append(changes: PendingChanges): Promise<void> {
    const batch = this.source.batch(changes);
    if (isEmptyBatch(batch)) return;
    const line = batchLine(batch);
    const journal = this.journal as FileHandle;
    await journal.appendFile(line);
    await journal.datasync();
    this.journalBytes += Buffer.byteLength(line);
    this.flushesSinceCompaction++;
  }

  /** The data file rewritten whole, then a new journal that continues it. */
  private async compact(): Promise<void> {
    this.compactNext = false;
    // Taken synchronously: every change noted until now is in it, none half made.
    const text = JSON.stringify(this.source.snapshot());
    this.pending = noChanges();
    await writeFileAtomic(this.file, text, { mode: 0o600 });
    await this.journal?.close();
    this.journal = null;
    const header = journalHeader(text);
    await writeFileAtomic(journalPath(this.file), header, { mode: 0o600 });
    this.journal = await fsp.open(journalPath(this.file), 'a');
    this.journalBytes = header.length;
    this.snapshotBytes = text.length;
    this.flushesSinceCompaction = 0;
  }

  /** Waits for the flushes under way, writes the data file whole, and removes the journal. */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    for (let flush = this.current ?? this.next; flush; flush = this.current ?? this.next) await flush.promise.catch(() => undefined);
    this.closed = true;
    try {
      if (this.compactNext || this.flushesSinceCompaction > 0) {
        const text = JSON.stringify(this.source.snapshot());
        await writeFileAtomic(this.file, text, { mode: 0o600 });
      }
      await this.journal?.close();
      this.journal = null;
      // Everything it held is in the data file now; left behind, it would name other bytes and be ignored.
      await fsp.unlink(journalPath(this.file)).catch(() => undefined);
    } catch (error) {
      this.log(`could not save the data file ${this.file}: ${(error as Error).message}`);
    }
  }
}
