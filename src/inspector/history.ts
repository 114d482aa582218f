// The inspector's history (cli.md, webhooks listen --inspect): each delivery, with its verdict,
// the target's answer and its replays, in a JSON Lines file read back at start. Bounded: the
// newest MAX_ENTRIES deliveries and at most MAX_BYTES. Two kinds of line: an entry line holds a
// whole delivery as it was then (the last one of an id stands for it, at the place of the
// entry's first line, so the order read back is the order of arrival); a part line holds only
// what was added to it since (a replay's exchange), so that a replay writes its own bytes and
// not the whole delivery again (a delivery with 20 replays of 64 KiB is 3.5 MB as a line).
// Files of an older rfs hold entry lines only: they read back as they did. Writes are
// coalesced: changes that come while a write runs (or within COALESCE_MS) go out together. When
// the file would pass MAX_LINES or MAX_BYTES it is written again (atomically, a line at a time,
// never as one string) with the newest MAX_ENTRIES entries only, so a restart lists the
// deliveries that were listed.
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.js';
import { stateFolderOrHome } from '../config/state-folder.js';
import { appendOwnFile } from '../core/own-file.js';
import { checkStateFile, untrustedWhy } from '../core/state-file.js';

export const MAX_ENTRIES = 1000;
export const MAX_BYTES = 50 * 1024 * 1024;
/** A delivery and each change to it take a line: twice the entries kept (HistoryFile's maxEntries) before the file is written anew. */
export const MAX_LINES = 2 * MAX_ENTRIES;
/** How long a change waits for others to go out with it. */
const COALESCE_MS = 50;

/** `$XDG_STATE_HOME/rfs/listen-<port>.jsonl`: one per port, beside the sync journal. */
export function defaultHistoryPath(env: NodeJS.ProcessEnv, port: number): string {
  return join(stateFolderOrHome(env), `listen-${port}.jsonl`);
}

/** Default histories (one per port: `--port 0` makes a new one each run) are kept this many at most… */
export const MAX_DEFAULT_HISTORIES = 20;
/** …and each only while it was written within this many days. */
export const DEFAULT_HISTORY_DAYS = 30;
const DEFAULT_HISTORY_NAME = /^listen-[0-9]+\.jsonl$/;

/**
 * Removes the default histories of other ports (`listen-<port>.jsonl` beside `current`) that were
 * not written for DEFAULT_HISTORY_DAYS, and the oldest beyond the newest MAX_DEFAULT_HISTORIES
 * (`current` counted, never removed); only regular files of this user. Their names, for stderr.
 * A --history the user named is never looked at.
 */
export async function pruneDefaultHistories(current: string, now: number): Promise<string[]> {
  const folder = dirname(current);
  const names = await readdir(folder).catch(() => [] as string[]);
  const euid = process.geteuid?.();
  const found: { name: string; mtimeMs: number }[] = [];
  for (const name of names) {
    if (!DEFAULT_HISTORY_NAME.test(name) || name === basename(current)) continue;
    const info = await lstat(join(folder, name)).catch(() => null);
    if (info === null || !info.isFile() || (euid !== undefined && info.uid !== euid)) continue;
    found.push({ name, mtimeMs: info.mtimeMs });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const unused = now - DEFAULT_HISTORY_DAYS * 24 * 60 * 60 * 1000;
  const removed: string[] = [];
  found.forEach((file, i) => {
    // The newest MAX_DEFAULT_HISTORIES - 1 others, with the current one.
    if (file.mtimeMs < unused || i >= MAX_DEFAULT_HISTORIES - 1) removed.push(file.name);
  });
  const gone: string[] = [];
  for (const name of removed)
    if (
      await unlink(join(folder, name)).then(
        () => true,
        () => false,
      )
    )
      gone.push(name);
  return gone.sort();
}

/** The history path names something that is not a regular file (a folder, a FIFO, a device). */
export class HistoryPathError extends Error {}

export interface HistoryRecord {
  id: string;
}

/**
 * A line that adds to an entry read before it (listen: a replay's exchange): its id, and how to
 * tell it and apply it. A part of an id with no entry (its entry line was before the tail read,
 * or forgotten) is left out, not counted as damage.
 */
export interface HistoryParts<T extends HistoryRecord, P extends HistoryRecord> {
  isPart(value: unknown): value is P;
  addPart(entry: T, part: P): void;
}

export interface ReadHistory<T> {
  entries: T[];
  /** Lines that were not an entry (a crash mid-write, an edit): skipped. */
  damaged: number;
  /**
   * The file holds bytes, but what was read of it (its tail) not one entry: not what rfs writes
   * (it writes an empty file for none). The caller sets it aside rather than write over it.
   */
  unreadable?: true;
}

/** Every line rfs writes in a history starts so: an object whose first member is its id (a whole number). */
const HISTORY_LINE_START = /^\{"id":"[1-9][0-9]*"/;

/** Whether the file's first line starts as a history line does (its first 64 bytes are enough to tell). */
async function startsAsHistory(handle: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(64);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return HISTORY_LINE_START.test(head.subarray(0, bytesRead).toString('latin1'));
}

/** The last `bytes` of a file, without reading what comes before them. */
async function tail(handle: FileHandle, size: number, bytes: number): Promise<{ text: string; cut: boolean }> {
  const start = Math.max(0, size - bytes);
  const buffer = Buffer.alloc(size - start);
  let got = 0;
  while (got < buffer.length) {
    const { bytesRead } = await handle.read(buffer, got, buffer.length - got, start + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return { text: buffer.subarray(0, got).toString('utf8'), cut: start > 0 };
}

// Windows has neither; there, no owners or modes are judged either (core/state-file.ts).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Why a history is refused, said for --history: what is wrong, and why that matters. */
function refused(why: string): HistoryPathError {
  if (why.endsWith('is not a regular file') || why.endsWith('is not a folder')) return new HistoryPathError(`the history ${why}`);
  // Its entries say which deliveries verified, and only those are re-signed.
  return new HistoryPathError(`the history is not read: ${why}; a history that another user could write (or swap) is not trusted`);
}

/**
 * The history opened for reading, as core/state-file.ts judges a state file rfs acts on: the
 * file and its folder this user's own and not writable by others, no link, a regular file.
 * Judged by name first (nothing is opened that is a FIFO or a device), then opened without
 * following a link and judged again by what was opened (the name may have been swapped in
 * between): every read goes through that descriptor. Undefined when there is no file.
 */
async function openHistory(file: string): Promise<{ handle: FileHandle; size: number } | undefined> {
  const check = checkStateFile(file);
  if (check.kind === 'missing') return undefined;
  if (check.kind === 'refused') throw refused(check.why);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in opens at once (then refused) rather than waiting for a writer.
    handle = await open(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refused(`${file} is a symbolic link`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    const why = stats.isFile() ? untrustedWhy(stats) : 'is not a regular file';
    if (why !== undefined) throw refused(`${file} ${why}`);
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The entries of a history file, oldest first, the last line of each id winning; none when there
 * is no file. Only its newest MAX_BYTES are read (a file grown past its bound by another program);
 * a path that is not a regular file, or that another user could write, is a HistoryPathError,
 * before anything is read from it.
 */
export async function readHistory<T extends HistoryRecord, P extends HistoryRecord = never>(
  file: string,
  isEntry: (value: unknown) => value is T,
  parts?: HistoryParts<T, P>,
  select: (entries: T[]) => T[] = newest,
): Promise<ReadHistory<T>> {
  const opened = await openHistory(file);
  if (opened === undefined) return { entries: [], damaged: 0 };
  let text: string;
  let cut: boolean;
  try {
    // A file of something else (notes, another program's log) is refused before anything is read
    // or written: the history would be written anew over it.
    if (opened.size > 0 && !(await startsAsHistory(opened.handle))) {
      throw new HistoryPathError(
        `the history ${file} is not an rfs history (its first line is not one): it is left as it is; give the path of a new file, or of a history rfs wrote`,
      );
    }
    ({ text, cut } = await tail(opened.handle, opened.size, MAX_BYTES));
  } finally {
    await opened.handle.close();
  }
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
    if (isEntry(value)) {
      // Map.set keeps the place of the first line of the id: the order of arrival.
      byId.set(value.id, value);
      continue;
    }
    if (parts?.isPart(value)) {
      const entry = byId.get(value.id);
      if (entry !== undefined) parts.addPart(entry, value);
      continue;
    }
    damaged++;
  }
  const entries = [...byId.values()];
  const kept = select(entries);
  return opened.size > 0 && kept.length === 0 ? { entries: kept, damaged, unreadable: true } : { entries: kept, damaged };
}

/** The newest MAX_ENTRIES entries (oldest first): what a history keeps unless its writer says otherwise. */
function newest<T>(entries: T[]): T[] {
  return entries.slice(Math.max(0, entries.length - MAX_ENTRIES));
}

export interface HistoryFileOptions<T, P = never> {
  /** Told when a write fails (the inspector goes on without the file). */
  onError?: (error: unknown) => void;
  /**
   * The entries it keeps at most, oldest out first (MAX_ENTRIES by default); a writer with quotas
   * of its own (the listener's: verified and refused deliveries apart) gives their sum and says
   * which go (evict). The file is written anew past twice this many lines.
   */
  maxEntries?: number;
  /** The bytes of an entry's line, or a close estimate (default: its JSON, measured). */
  sizeOf?: (entry: T) => number;
  /**
   * A copy of the entry as it is now, whose line a rewrite makes later (default: the entry
   * itself). Without it a change made while a rewrite runs could be in the file twice: in the
   * rewritten line and in a part line after it.
   */
  snapshot?: (entry: T) => T;
  /**
   * An entry's line as pieces of text, its end of line included (default: its JSON, whole). The
   * listener writes each body as a piece of its own: a line of 20 replays is 3.5 MB, and a
   * string that large goes straight to V8's old space, which then grows before it is collected.
   */
  entryLine?: (entry: T) => HistoryLine;
  /** A part's line as pieces of text (default: its JSON, whole). */
  partLine?: (part: P) => HistoryLine;
}

/** Appends entries and their parts as lines, coalesced; rewrites the file with the newest entries when a bound would be passed. */
export class HistoryFile<T extends HistoryRecord, P extends HistoryRecord = never> {
  private lines = 0;
  private bytes = 0;
  /** What the file stands for: the newest MAX_ENTRIES entries, in order of arrival (the objects themselves, not copies). */
  private readonly kept = new Map<string, T>();
  /** Entries new or changed as a whole since the last write. */
  private readonly pending = new Map<string, T>();
  /** Parts added since the last write, in order. */
  private pendingParts: P[] = [];
  private draining: Promise<void> | undefined;
  /** An entry was forgotten: the next write is a rewrite. */
  private stale = false;
  private started: Promise<void> = Promise.resolve();
  /** How many writes went to the file (appends and rewrites): for the tests of coalescing. */
  writes = 0;

  private readonly onError: (error: unknown) => void;
  private readonly maxEntries: number;
  private readonly entryLine: (entry: T) => HistoryLine;
  private readonly partLine: (part: P) => HistoryLine;

  constructor(
    readonly file: string,
    initial: readonly T[],
    private readonly o: HistoryFileOptions<T, P> = {},
  ) {
    this.onError = o.onError ?? (() => undefined);
    this.maxEntries = o.maxEntries ?? MAX_ENTRIES;
    this.entryLine = o.entryLine ?? wholeLine;
    this.partLine = o.partLine ?? wholeLine;
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

  /** The entry (new or changed) is written soon, whole, once however often it changes meanwhile. */
  append(entry: T): void {
    this.keep(entry);
    this.pending.set(entry.id, entry);
    this.kick();
  }

  /** A part added to a kept entry (already changed in it) is written soon, as a line of its own. */
  appendPart(part: P): void {
    if (!this.kept.has(part.id)) return;
    this.pendingParts.push(part);
    this.kick();
  }

  /** The entry leaves the history (dropped to keep the inspector within its bytes): the file is written anew without it. */
  forget(id: string): void {
    if (!this.kept.delete(id)) return;
    this.pending.delete(id);
    this.pendingParts = this.pendingParts.filter((part) => part.id !== id);
    this.stale = true;
    this.kick();
  }

  /**
   * The entry leaves what the file stands for without a rewrite: its lines stay until the next
   * one, and a read back that selects as its writer does (the newest of its kind) leaves it out.
   */
  evict(id: string): void {
    this.kept.delete(id);
    this.pending.delete(id);
  }

  /** Waits until every change made so far is in the file (or its write failed and was reported). */
  async flushed(): Promise<void> {
    await this.started.catch(() => undefined);
    while (this.draining !== undefined) await this.draining;
  }

  private keep(entry: T): void {
    this.kept.set(entry.id, entry);
    if (this.kept.size > this.maxEntries) {
      const oldest = this.kept.keys().next().value as string;
      this.kept.delete(oldest);
      this.pending.delete(oldest);
      this.pendingParts = this.pendingParts.filter((part) => part.id !== oldest);
    }
  }

  private kick(): void {
    if (this.draining !== undefined) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.pending.size > 0 || this.pendingParts.length > 0 || this.stale) this.kick();
    });
  }

  private async drain(): Promise<void> {
    await this.started.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, COALESCE_MS));
    while (this.pending.size > 0 || this.pendingParts.length > 0 || this.stale) {
      if (this.stale) {
        // Every kept entry as it is now, the pending ones and their parts included.
        this.stale = false;
        this.pending.clear();
        this.pendingParts = [];
        try {
          this.writes++;
          await this.rewrite();
        } catch (error) {
          this.onError(error);
        }
        continue;
      }
      // Made now, at once: an entry's whole line holds its parts so far, which are not written again.
      const lines = [...this.pending.values()].map(this.entryLine);
      for (const part of this.pendingParts) if (!this.pending.has(part.id)) lines.push(this.partLine(part));
      this.pending.clear();
      this.pendingParts = [];
      try {
        await this.write(lines);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  private async write(lines: HistoryLine[]): Promise<void> {
    const size = lines.reduce((sum, line) => sum + line.bytes, 0);
    this.writes++;
    if (this.lines + lines.length > 2 * this.maxEntries || this.bytes + size > MAX_BYTES) {
      // The rewrite holds what they say: they are not kept while it runs (the caller's array too).
      lines.length = 0;
      await this.rewrite();
      return;
    }
    // Never through a link rfs did not make (core/own-file.ts).
    await appendOwnFile(
      this.file,
      (function* () {
        for (const line of lines) yield* line.pieces();
      })(),
    );
    this.lines += lines.length;
    this.bytes += size;
  }

  /**
   * The newest MAX_ENTRIES entries in place of the file, within a tenth below MAX_BYTES (so that
   * appends go on for a while before the next rewrite); what the byte bound leaves out is dropped.
   * The entries are taken as they are when it starts (snapshot), and written a line at a time:
   * a rewrite holds one line more than the entries themselves, not the whole file as a string.
   */
  private async rewrite(): Promise<void> {
    const all = [...this.kept.values()];
    const sizeOf = this.o.sizeOf ?? ((entry: T) => this.entryLine(entry).bytes);
    let bytes = 0;
    let from = all.length;
    for (let i = all.length - 1; i >= 0; i--) {
      const size = sizeOf(all[i] as T);
      if (bytes + size > MAX_BYTES * 0.9) break;
      bytes += size;
      from = i;
    }
    for (const entry of all.slice(0, from)) this.kept.delete(entry.id);
    const snapshot = this.o.snapshot ?? ((entry: T) => entry);
    const taken = all.slice(from).map(snapshot);
    let written = 0;
    const entryLine = this.entryLine;
    async function* lines(): AsyncGenerator<string> {
      for (const entry of taken) {
        const line = entryLine(entry);
        written += line.bytes;
        yield* line.pieces();
      }
    }
    await writeFileAtomic(this.file, lines(), { mode: 0o600 });
    this.lines = taken.length;
    this.bytes = written;
  }
}

/**
 * A line as the file gets it: its size, and its text in pieces made as they are written (the
 * listener's bodies become base64 one at a time, none held while the others are written).
 */
export interface HistoryLine {
  bytes: number;
  pieces(): Iterable<string>;
}

function wholeLine(value: unknown): HistoryLine {
  const text = `${JSON.stringify(value)}\n`;
  return { bytes: Buffer.byteLength(text), pieces: () => [text] };
}
