// --data kept durable (sandbox.md, Durability of --data): a change is on disk before the answer
// that acknowledges it goes out. Group commit: changes are noted as they happen; one flush, begun
// on the next turn of the event loop, appends every change noted until then to the journal as
// one line and fdatasyncs it, and the answers of all of them wait for that one flush
// (durable()). Lines are appended in order, on the main thread; up to two fdatasyncs may be under way
// at once: a filing then waits for about one fdatasync, not for the end of the one before it as
// well (an fdatasync makes every line written before it durable, whichever finishes first).
//
// Compaction rewrites the data file whole (the one atomic write, core/atomic-write.ts) and
// starts a new journal that names it: at start, after a state was replaced (reset, restore,
// PUT /_sandbox/state), when the journal has grown larger than the data file (and 8 MB), after
// 200 ms without a change, after a failed write, and at shutdown, when the journal is removed.
// A SIGKILL at any point leaves files that load (journal.ts says why).
import { promises as fsp, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../core/atomic-write.js';
import { openAppend } from '../core/own-file.js';
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
  settled: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

function newFlush(): Flush {
  const flush: Flush = { promise: Promise.resolve(), settled: false, resolve: () => undefined, reject: () => undefined };
  flush.promise = new Promise<void>((resolve, reject) => {
    flush.resolve = () => {
      flush.settled = true;
      resolve();
    };
    flush.reject = (error) => {
      flush.settled = true;
      reject(error);
    };
  });
  // A flush nobody waits on (a delivery attempt's) must not fail as an unhandled rejection.
  flush.promise.catch(() => undefined);
  return flush;
}

const MAX_SYNCS = 2;

export class Saver {
  private pending = noChanges();
  /** The next flush: what was noted since the last one began; null when nothing was. */
  private next: Flush | null = null;
  /** The flush begun last: once it is on disk, so is everything before it. */
  private last: Flush | null = null;
  /** Appended, fdatasync under way. */
  private readonly syncing = new Set<Flush>();
  private compacting: Promise<void> | null = null;
  private scheduled = false;
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
    if (this.next) return this.next.promise;
    return this.last && !this.last.settled ? this.last.promise : null;
  }

  private request(): void {
    clearTimeout(this.idle);
    if (this.closed) return;
    this.next ??= newFlush();
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || !this.next || this.closed) return;
    this.scheduled = true;
    // On the next turn of the event loop: every request handled in this one joins the flush.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Takes the next flush and what it holds. */
  private take(): { flush: Flush; changes: PendingChanges } {
    const flush = this.next ?? newFlush();
    const changes = this.pending;
    this.next = null;
    this.pending = noChanges();
    this.last = flush;
    return { flush, changes };
  }

  private pump(): void {
    if (!this.next || this.compacting || this.closed) return;
    if (this.compactNext || this.journal === null || this.journalBytes > Math.max(MIN_COMPACTION_BYTES, this.snapshotBytes)) {
      this.compacting = this.compact().finally(() => {
        this.compacting = null;
        this.afterFlush();
      });
      return;
    }
    if (this.syncing.size >= MAX_SYNCS) return; // Resumed when one ends; meanwhile the next flush grows.
    const { flush, changes } = this.take();
    const batch = this.source.batch(changes);
    if (isEmptyBatch(batch)) {
      // Nothing of its own to write; what its answers saw may still be on its way to disk.
      void Promise.allSettled([...this.syncing].map((f) => f.promise)).then(() => flush.resolve());
      return;
    }
    const line = Buffer.from(batchLine(batch));
    const journal = this.journal;
    try {
      // Written at once, on this thread: a small write into the page cache costs microseconds,
      // and lines land in the order flushes begin. Only the fdatasync waits on the disk.
      for (let written = 0; written < line.length; ) written += writeSync(journal.fd, line, written);
    } catch (error) {
      // The journal may now end in part of a line: failed() makes the next flush replace it.
      this.failed(flush, error);
      this.afterFlush();
      return;
    }
    this.journalBytes += line.length;
    this.syncing.add(flush);
    journal
      .datasync()
      .then(
        () => {
          this.flushesSinceCompaction++;
          flush.resolve();
        },
        (error: unknown) => this.failed(flush, error),
      )
      .finally(() => {
        this.syncing.delete(flush);
        this.afterFlush();
      });
  }

  private failed(flush: Flush, error: unknown): void {
    // Rewriting the whole file next time also covers what this flush held.
    this.compactNext = true;
    this.log(`could not save the data file ${this.file}: ${(error as Error).message}`);
    flush.reject(error);
  }

  private afterFlush(): void {
    this.schedule();
    if (this.closed || this.next || this.compacting || this.syncing.size > 0) return;
    if (this.flushesSinceCompaction > 0 || this.compactNext) {
      this.idle = setTimeout(() => this.everything(), IDLE_COMPACTION_MS);
      this.idle.unref();
    }
  }

  /** The data file rewritten whole, then a new journal that continues it. */
  private async compact(): Promise<void> {
    // The old journal's appends end first: its handle is closed below.
    await Promise.allSettled([...this.syncing].map((f) => f.promise));
    const { flush } = this.take();
    this.compactNext = false;
    try {
      // Taken synchronously: every change noted until now is in it, none half made.
      const text = JSON.stringify(this.source.snapshot());
      await writeFileAtomic(this.file, text, { mode: 0o600 });
      await this.journal?.close();
      this.journal = null;
      const header = journalHeader(text);
      await writeFileAtomic(journalPath(this.file), header, { mode: 0o600 });
      this.journal = await openAppend(journalPath(this.file), 0o600);
      this.journalBytes = header.length;
      this.snapshotBytes = text.length;
      this.flushesSinceCompaction = 0;
      flush.resolve();
    } catch (error) {
      this.failed(flush, error);
    }
  }

  /** Waits for the flushes under way, writes the data file whole, and removes the journal. */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    for (;;) {
      const waits: Promise<unknown>[] = [...this.syncing].map((f) => f.promise);
      if (this.compacting !== null) waits.push(this.compacting);
      if (this.next) waits.push(this.next.promise);
      if (waits.length === 0) break;
      await Promise.allSettled(waits);
    }
    this.closed = true;
    clearTimeout(this.idle);
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
