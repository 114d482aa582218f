// The inspector's history (cli.md, webhooks listen --inspect): each delivery, with its verdict,
// the target's answer and its replays, as one JSON line appended to a file, read back at start.
// Bounded: the newest MAX_ENTRIES deliveries and at most MAX_BYTES. A later line for the same id
// (a replay's result) stands for the whole entry, at the place of the entry's first line, so the
// order read back is the order of arrival. Writes are coalesced: changes that come while a write
// runs (or within COALESCE_MS) go out together, one line per entry however often it changed.
// When the file would pass MAX_LINES or MAX_BYTES it is written again (atomically) with the
// newest MAX_ENTRIES entries only, so a restart lists the deliveries that were listed.
import { lstat, mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.js';
import { stateFolderOrHome } from '../config/state-folder.js';
import { appendOwnFile } from '../core/own-file.js';
import { untrustedWhy } from '../core/state-file.js';

export const MAX_ENTRIES = 1000;
export const MAX_BYTES = 50 * 1024 * 1024;
/** A delivery and each change to it take a line: twice the entries before the file is written anew. */
export const MAX_LINES = 2 * MAX_ENTRIES;
/** How long a change waits for others to go out with it. */
const COALESCE_MS = 50;

/** `$XDG_STATE_HOME/rfs/listen-<port>.jsonl`: one per port, beside the sync journal. */
export function defaultHistoryPath(env: NodeJS.ProcessEnv, port: number): string {
  return join(stateFolderOrHome(env), `listen-${port}.jsonl`);
}

/** The history path names something that is not a regular file (a folder, a FIFO, a device). */
export class HistoryPathError extends Error {}

export interface HistoryRecord {
  id: string;
}

export interface ReadHistory<T> {
  entries: T[];
  /** Lines that were not an entry (a crash mid-write, an edit): skipped. */
  damaged: number;
}

/** The last `bytes` of a file, without reading what comes before them. */
async function tail(file: string, size: number, bytes: number): Promise<{ text: string; cut: boolean }> {
  const start = Math.max(0, size - bytes);
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(size - start);
    let got = 0;
    while (got < buffer.length) {
      const { bytesRead } = await handle.read(buffer, got, buffer.length - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { text: buffer.subarray(0, got).toString('utf8'), cut: start > 0 };
  } finally {
    await handle.close();
  }
}

/**
 * The entries of a history file, oldest first, the last line of each id winning; none when there
 * is no file. Only its newest MAX_BYTES are read (a file grown past its bound by another program);
 * a path that is not a regular file is a HistoryPathError, before anything is read from it.
 */
export async function readHistory<T extends HistoryRecord>(file: string, isEntry: (value: unknown) => value is T): Promise<ReadHistory<T>> {
  const found = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (found === null) return { entries: [], damaged: 0 };
  if (found.isSymbolicLink()) throw new HistoryPathError(`the history ${file} is a symbolic link: give the file itself`);
  if (!found.isFile()) throw new HistoryPathError(`the history ${file} is not a regular file`);
  // Its entries say which deliveries verified, and only those are re-signed: a file another user
  // could have written is not read (core/state-file.ts, as the code cache is not).
  const why = untrustedWhy(found);
  if (why !== undefined) throw new HistoryPathError(`the history ${file} ${why}: a history another user could write is not read`);
  const { text, cut } = await tail(file, found.size, MAX_BYTES);
  const lines = text.split('\n');
  // The first line of a tail starts mid-line: not damage, just where the read began.
  if (cut) lines.shift();
  const byId = new Map<string, T>();
  let damaged = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged++;
      continue;
    }
    if (!isEntry(value)) {
      damaged++;
      continue;
    }
    // Map.set keeps the place of the first line of the id: the order of arrival.
    byId.set(value.id, value);
  }
  const entries = [...byId.values()];
  return { entries: entries.slice(Math.max(0, entries.length - MAX_ENTRIES)), damaged };
}

/** Appends entries as lines, coalesced; rewrites the file with the newest entries when a bound would be passed. */
export class HistoryFile<T extends HistoryRecord> {
  private lines = 0;
  private bytes = 0;
  /** What the file stands for: the newest MAX_ENTRIES entries, in order of arrival (the objects themselves, not copies). */
  private readonly kept = new Map<string, T>();
  /** Entries changed since the last write. */
  private readonly pending = new Map<string, T>();
  private draining: Promise<void> | undefined;
  private started: Promise<void> = Promise.resolve();
  /** How many writes went to the file (appends and rewrites): for the tests of coalescing. */
  writes = 0;

  constructor(
    readonly file: string,
    initial: readonly T[],
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    for (const entry of initial) this.keep(entry);
  }

  /** Writes the entries read back as the file's whole content (a damaged line goes). */
  start(): Promise<void> {
    this.started = (async () => {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await this.rewrite();
    })();
    return this.started;
  }

  /** The entry (new or changed) is written soon, once however often it changes meanwhile. */
  append(entry: T): void {
    this.keep(entry);
    this.pending.set(entry.id, entry);
    this.kick();
  }

  /** Waits until every change made so far is in the file (or its write failed and was reported). */
  async flushed(): Promise<void> {
    await this.started.catch(() => undefined);
    while (this.draining !== undefined) await this.draining;
  }

  private keep(entry: T): void {
    this.kept.set(entry.id, entry);
    if (this.kept.size > MAX_ENTRIES) {
      const oldest = this.kept.keys().next().value as string;
      this.kept.delete(oldest);
      this.pending.delete(oldest);
    }
  }

  private kick(): void {
    if (this.draining !== undefined) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.pending.size > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    await this.started.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, COALESCE_MS));
    while (this.pending.size > 0) {
      const batch = [...this.pending.values()];
      this.pending.clear();
      try {
        await this.write(batch);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  private async write(batch: readonly T[]): Promise<void> {
    const lines = batch.map((entry) => `${JSON.stringify(entry)}\n`);
    const size = lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    this.writes++;
    if (this.lines + lines.length > MAX_LINES || this.bytes + size > MAX_BYTES) {
      await this.rewrite();
      return;
    }
    // Never through a link rfs did not make (core/own-file.ts).
    await appendOwnFile(this.file, lines.join(''));
    this.lines += lines.length;
    this.bytes += size;
  }

  /**
   * The newest MAX_ENTRIES entries in place of the file, within a tenth below MAX_BYTES (so that
   * appends go on for a while before the next rewrite); what the byte bound leaves out is dropped.
   */
  private async rewrite(): Promise<void> {
    const all = [...this.kept.values()];
    const kept: string[] = [];
    let bytes = 0;
    let from = all.length;
    for (let i = all.length - 1; i >= 0; i--) {
      const line = `${JSON.stringify(all[i])}\n`;
      const size = Buffer.byteLength(line);
      if (bytes + size > MAX_BYTES * 0.9) break;
      kept.push(line);
      bytes += size;
      from = i;
    }
    kept.reverse();
    for (const entry of all.slice(0, from)) this.kept.delete(entry.id);
    await writeFileAtomic(this.file, kept.join(''), { mode: 0o600 });
    this.lines = kept.length;
    this.bytes = bytes;
  }
}
