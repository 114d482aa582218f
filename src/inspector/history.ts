// The inspector's history (cli.md, webhooks listen --inspect): each delivery, with its verdict,
// the target's answer and its replays, as one JSON line appended to a file, read back at start.
// Bounded: the newest MAX_ENTRIES deliveries and at most MAX_BYTES. A later line for the same id
// (a replay's result) stands for the whole entry. Appends are cheap; when the file would hold
// more lines than the bound, it is written again (atomically) with the newest entries only,
// a tenth below the bound, so that rewrites come once per hundred deliveries, not per delivery.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { homedir } from 'node:os';
import { writeFileAtomic } from '../core/atomic-write.js';
import { appendOwnFile } from '../core/own-file.js';

export const MAX_ENTRIES = 1000;
export const MAX_BYTES = 50 * 1024 * 1024;
/** After a rewrite the file holds this share of the bounds. */
const KEPT_SHARE = 0.9;

/** `$XDG_STATE_HOME/rfs/listen-<port>.jsonl`: one per port, beside the sync journal. */
export function defaultHistoryPath(env: NodeJS.ProcessEnv, port: number): string {
  const state = env.XDG_STATE_HOME?.startsWith('/') ? env.XDG_STATE_HOME : join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'rfs', `listen-${port}.jsonl`);
}

export interface HistoryRecord {
  id: string;
}

export interface ReadHistory<T> {
  entries: T[];
  /** Lines that were not an entry (a crash mid-write, an edit): skipped. */
  damaged: number;
}

/** The entries of a history file, oldest first, the last line of each id winning; none when there is no file. */
export async function readHistory<T extends HistoryRecord>(file: string, isEntry: (value: unknown) => value is T): Promise<ReadHistory<T>> {
  const found = await stat(file).catch(() => null);
  if (found === null) return { entries: [], damaged: 0 };
  if (!found.isFile()) throw new Error(`the history ${file} is not a file`);
  // A file grown past its bound (another program appended to it) is read from its newest part.
  const text = (await readFile(file)).subarray(Math.max(0, found.size - 2 * MAX_BYTES)).toString('utf8');
  const byId = new Map<string, T>();
  let damaged = 0;
  for (const line of text.split('\n')) {
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
    byId.delete(value.id);
    byId.set(value.id, value);
  }
  const entries = [...byId.values()];
  return { entries: entries.slice(Math.max(0, entries.length - MAX_ENTRIES)), damaged };
}

/** Appends entries as lines; rewrites the file with the newest ones when a bound would be passed. */
export class HistoryFile<T extends HistoryRecord> {
  private lines = 0;
  private bytes = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly newest = new Map<string, string>();

  constructor(
    readonly file: string,
    initial: readonly T[],
  ) {
    for (const entry of initial) this.newest.set(entry.id, JSON.stringify(entry));
  }

  /** Writes the entries read back as the file's whole content (a damaged line goes). */
  start(): Promise<void> {
    return this.enqueue(async () => {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await this.rewrite();
    });
  }

  /** The entry's line, appended after those before it; a rewrite instead when a bound is reached. */
  append(entry: T): Promise<void> {
    const line = JSON.stringify(entry);
    this.newest.delete(entry.id);
    this.newest.set(entry.id, line);
    return this.enqueue(async () => {
      const size = Buffer.byteLength(line) + 1;
      if (this.lines + 1 > MAX_ENTRIES || this.bytes + size > MAX_BYTES) {
        await this.rewrite();
        return;
      }
      await appendOwnFile(this.file, `${line}\n`, 0o600);
      this.lines++;
      this.bytes += size;
    });
  }

  /** Waits for the writes queued so far. */
  flushed(): Promise<void> {
    return this.queue;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    // One failed write must not stop the next ones; the caller of this one sees its error.
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The newest entries within a tenth below the bounds, in place of the file. */
  private async rewrite(): Promise<void> {
    const all = [...this.newest.values()];
    const kept: string[] = [];
    let bytes = 0;
    for (let i = all.length - 1; i >= 0 && kept.length < Math.floor(MAX_ENTRIES * KEPT_SHARE); i--) {
      const line = all[i] as string;
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > MAX_BYTES * KEPT_SHARE) break;
      kept.push(line);
      bytes += size;
    }
    kept.reverse();
    // The entries dropped from the file are dropped here too: newest keeps what the file holds.
    const keptIds = new Set(kept.map((line) => (JSON.parse(line) as HistoryRecord).id));
    for (const id of [...this.newest.keys()]) if (!keptIds.has(id)) this.newest.delete(id);
    await writeFileAtomic(this.file, kept.map((line) => `${line}\n`).join(''), { mode: 0o600 });
    this.lines = kept.length;
    this.bytes = bytes;
  }
}
