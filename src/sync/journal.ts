// The sync journal (cli.md, sync): one JSON line per step, each flushed to disk (fsync) before
// rfs acts on it, so that a run killed at any instant can tell, per recording, whether the
// command may have run (`started`), what it answered (`result`), and whether the filing was
// confirmed (`filed`), and that a command ran and failed (`failed`, for the backoff). An older
// rfs reads a `failed` line as a damaged one: it reports it, skips it and runs the command again
// (as for a bare `started`), which is what it did before failures were journaled.
// One process at a time owns a journal, through a lock file beside it.
import { closeSync, constants, fstatSync, fsyncSync, mkdirSync, openSync, readSync, statSync, utimesSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { formatPath } from '../api/contract.js';
import { writeFileAtomicSync } from '../core/atomic-write.js';
import { NotOwnFileError, openAppendSync } from '../core/own-file.js';
import { UsageError } from '../core/errors.js';
import { describeOwner, type HeldLock, lockHost, tryLockSync } from '../core/lock.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { Ui } from '../core/ui.js';
import { stateFolderOrHome } from '../config/state-folder.js';
import { MAX_METADATA_DEPTH, metadataTooDeep } from '../shared/json-depth.js';

export interface ExternalRecord {
  externalId: string;
  externalUrl?: string;
  metadata?: Record<string, unknown>;
}

export type JournalEntry =
  | { step: 'started'; id: string; attempt: number; at: string }
  | ({ step: 'result'; id: string; attempt: number; at: string } & ExternalRecord)
  | { step: 'filed'; id: string; externalId: string; syncCount: number; at: string }
  | { step: 'dropped'; id: string; reason: string; at: string }
  // The command ran and failed (an exit code, a timeout, an answer that is no record): the
  // backoff and parking of backoff.ts read it. `failures` counts the failures in a row.
  | ({ step: 'failed'; id: string; attempt: number; at: string } & Failure);

/** A command's failure as journaled: what the next try waits on, or that it is parked. */
export interface Failure {
  failures: number;
  error: { code: string; title: string };
  /** Set on the failure that reached --max-attempts: never run again until --retry-parked. */
  parked?: boolean;
}

/** Where a recording stands after replaying the journal. */
export interface RecordingState {
  /** How many times the command was started for it. */
  attempts: number;
  /** The command's answer, when one was received and not yet filed. */
  result?: ExternalRecord;
  /** The last failure of the command, with the attempt that failed and when. */
  failure?: Failure & { attempt: number; at: string };
}

export interface JournalProblem {
  line: number;
  message: string;
}

export function defaultJournalPath(env: NodeJS.ProcessEnv, profile: string): string {
  // The state folder of rfs (config/state-folder.ts), with the process's home as the last resort.
  const folder = stateFolderOrHome(env);
  return join(folder, `sync-${profile.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
}

const RecordingId = z.string().check(z.minLength(1));

/**
 * What a line must be to be read as a step (zod, as at every other boundary): the fields the
 * replay uses, of their types. Unknown fields pass (a newer rfs may add some); an unknown step
 * is a damaged line, as is a step missing what it needs.
 */
const JournalLine = z.discriminatedUnion('step', [
  z.looseObject({ step: z.literal('started'), id: RecordingId, attempt: z.number() }),
  z.looseObject({
    step: z.literal('result'),
    id: RecordingId,
    attempt: z.number(),
    externalId: z.string().check(z.minLength(1)),
    externalUrl: z.optional(z.string()),
    metadata: z.optional(z.record(z.string(), z.unknown())),
  }),
  z.looseObject({ step: z.literal('filed'), id: RecordingId, externalId: z.string() }),
  z.looseObject({ step: z.literal('dropped'), id: RecordingId }),
  z.looseObject({
    step: z.literal('failed'),
    id: RecordingId,
    attempt: z.number(),
    at: z.string(),
    failures: z.number(),
    error: z.looseObject({ code: z.string(), title: z.string() }),
    parked: z.optional(z.boolean()),
  }),
]);
type JournalLine = z.infer<typeof JournalLine>;

/** One step into per-recording state: shared by the replay and by append. */
function applyEntry(states: Map<string, RecordingState>, entry: JournalEntry | JournalLine): void {
  const state = states.get(entry.id) ?? { attempts: 0 };
  switch (entry.step) {
    case 'started':
      state.attempts = Math.max(state.attempts, entry.attempt);
      break;
    case 'result': {
      const { externalId, externalUrl, metadata } = entry;
      state.result = {
        externalId,
        ...(externalUrl === undefined ? {} : { externalUrl }),
        ...(metadata === undefined ? {} : { metadata }),
      };
      state.attempts = Math.max(state.attempts, entry.attempt);
      break;
    }
    case 'failed': {
      const { attempt, at, failures, error, parked } = entry;
      state.failure = { attempt, at, failures, error: { code: error.code, title: error.title }, ...(parked ? { parked } : {}) };
      state.attempts = Math.max(state.attempts, attempt);
      break;
    }
    case 'filed':
    case 'dropped':
      // Done with: nothing about it needs to be remembered.
      states.delete(entry.id);
      return;
  }
  states.set(entry.id, state);
}

/** One line of a journal into per-recording state; a damaged line becomes a problem. */
class Replay {
  readonly states = new Map<string, RecordingState>();
  readonly problems: JournalProblem[] = [];
  private number = 0;

  /** `last`: the text after the final newline (a line cut short by a crash mid-write). */
  line(line: string, last: boolean): void {
    this.number += 1;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.problem(last ? 'the last line is incomplete (rfs was stopped while writing it); skipped' : 'the line is not JSON; skipped');
      return;
    }
    const parsed = z.safeParse(JournalLine, value);
    if (!parsed.success) {
      const where = parsed.error.issues[0] === undefined ? '' : formatPath(parsed.error.issues[0].path);
      this.problem(`the line is not a journal step${where === '' ? '' : ` (${where})`}; skipped`);
      return;
    }
    const entry = parsed.data;
    // An answer rfs could not send (it refuses such answers before journaling them, so the line
    // was written by something else): the command runs again rather than rfs crashing on it.
    if (entry.step === 'result' && metadataTooDeep(entry.metadata)) {
      this.problem(`the answer's metadata is nested more than ${MAX_METADATA_DEPTH} levels deep; skipped`);
      return;
    }
    applyEntry(this.states, entry);
  }

  /** A line longer than any step rfs writes: not read, only counted. */
  overlong(): void {
    this.number += 1;
    this.problem(`the line is longer than ${MAX_LINE_BYTES / MIB} MiB, more than any step rfs writes; skipped`);
  }

  private problem(message: string): void {
    this.problems.push({ line: this.number, message });
  }
}

/** Replays journal text into per-recording state; damaged lines are reported, never fatal. */
export function replayJournal(text: string): { states: Map<string, RecordingState>; problems: JournalProblem[] } {
  const replay = new Replay();
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) replay.line(line, index === lines.length - 1);
  return replay;
}

/**
 * A sync touches its journal's lock this often; a lock of this host in another boot or PID
 * namespace untouched for LOCK_LIVE_WITHIN_MS is a dead container's or pod's (core/lock.ts).
 */
const LOCK_REFRESH_MS = 15_000;
export const LOCK_LIVE_WITHIN_MS = 60_000;

const MIB = 1024 * 1024;
/**
 * A step is one line: a `result` carries the command's answer, at most 1 MiB (exec.ts), so a
 * longer line was not written by rfs. It is skipped without being held in memory.
 */
export const MAX_LINE_BYTES = 4 * MIB;
/**
 * The journal is compacted to what is pending whenever a sync starts; past this size it is not
 * a journal rfs wrote (or one a sync grew for months without a restart), and it is refused
 * rather than read into memory (a 2 GB journal crashed rfs).
 */
export const MAX_JOURNAL_BYTES = 256 * MIB;
const CHUNK_BYTES = 64 * 1024;

/** A journal rfs does not read: not a regular file, or past MAX_JOURNAL_BYTES. Exit 2. */
export class JournalRefusedError extends UsageError {}

function tooLarge(path: string): JournalRefusedError {
  return new JournalRefusedError(
    `the journal ${path} is larger than ${MAX_JOURNAL_BYTES / MIB} MiB, more than rfs reads: it is not a journal rfs sync wrote`,
    { hint: 'give --journal the journal of rfs sync, or move this file aside (a new journal starts empty)' },
  );
}

/**
 * Reads a journal as a stream, line by line, holding at most one line (MAX_LINE_BYTES) in
 * memory; a missing file is an empty journal. Refused (exit 2): anything but a regular file
 * (`/dev/zero`, a FIFO, a folder), and a file past MAX_JOURNAL_BYTES.
 */
export function readJournalFile(path: string): { states: Map<string, RecordingState>; problems: JournalProblem[] } {
  const replay = new Replay();
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer before the check below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return replay;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new JournalRefusedError(`the journal ${path} is not a regular file`, { hint: 'give --journal the path of a file' });
    }
    if (stat.size > MAX_JOURNAL_BYTES) throw tooLarge(path);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let parts: Buffer[] = [];
    let held = 0;
    let overlong = false;
    let total = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      total += n;
      // The file grew while it was read.
      if (total > MAX_JOURNAL_BYTES) throw tooLarge(path);
      const data = chunk.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(10, start); ; nl = data.indexOf(10, start)) {
        const end = nl === -1 ? n : nl;
        if (!overlong) {
          if (held + (end - start) > MAX_LINE_BYTES) {
            overlong = true;
            parts = [];
            held = 0;
          } else if (end > start) {
            parts.push(Buffer.from(data.subarray(start, end)));
            held += end - start;
          }
        }
        if (nl === -1) break;
        if (overlong) replay.overlong();
        else replay.line(Buffer.concat(parts, held).toString('utf8'), false);
        parts = [];
        held = 0;
        overlong = false;
        start = nl + 1;
      }
    }
    if (overlong) replay.overlong();
    else if (held > 0) replay.line(Buffer.concat(parts, held).toString('utf8'), true);
  } finally {
    closeSync(fd);
  }
  return replay;
}

/**
 * The journal file or its lock was deleted or replaced while this process held them: going on
 * would write steps nobody reads, or share the journal with another sync. Exit 2, as when the
 * lock is refused at start: a local fault, found before anything more is run or sent.
 */
export class JournalLostError extends UsageError {}

/** The same file, not another one now at the same path. */
interface FileId {
  dev: number;
  ino: number;
}

function fileIdAt(path: string): FileId | undefined {
  try {
    const { dev, ino } = statSync(path);
    return { dev, ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const sameFile = (a: FileId | undefined, b: FileId | undefined): boolean =>
  a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;

export class Journal {
  private fd: number | undefined;
  private readonly lockPath: string;
  /** The lock file this process made, to tell it from one deleted, or made by another sync. */
  private lockId: FileId | undefined;
  private held: HeldLock | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  private constructor(
    readonly path: string,
    readonly states: Map<string, RecordingState>,
    readonly problems: JournalProblem[],
    /** The run's clock (core/clock.ts): every step is stamped with its time. */
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.lockPath = `${path}.lock`;
  }

  /** Says each damaged line the replay skipped, as sync, its dry run and sync status all do. */
  warnProblems(ui: Pick<Ui, 'warn'>): void {
    for (const p of this.problems) ui.warn(`journal ${this.path}, line ${p.line}: ${p.message}`);
  }

  /** Reads the journal (it may not exist yet) without taking it: for --dry-run. */
  static peek(path: string, clock: Pick<Clock, 'now'> = systemClock): Journal {
    const file = resolve(path);
    const { states, problems } = readJournalFile(file);
    return new Journal(file, states, problems, clock);
  }

  /** Now, as a step's `at`: the run's clock, not the machine's. */
  stamp(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /**
   * Takes the journal for this process: the lock first (another live rfs sync on the same
   * journal is refused), then the replay, then a compacted rewrite holding only what is still
   * pending, which also clears a damaged last line.
   */
  static open(path: string, clock: Pick<Clock, 'now'>): Journal {
    const file = resolve(path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const journal = Journal.peek(file, clock);
    journal.lock();
    try {
      // Re-read under the lock: the peek may have raced another process's last writes.
      const { states, problems } = readJournalFile(file);
      journal.states.clear();
      for (const [id, state] of states) journal.states.set(id, state);
      journal.problems.splice(0, journal.problems.length, ...problems);
      journal.compact();
      journal.fd = openAppendSync(file, 0o600);
    } catch (error) {
      journal.unlock();
      if (error instanceof NotOwnFileError) {
        throw new JournalRefusedError(`the journal ${error.message}`, {
          hint: 'give --journal the path of a file of your own',
          cause: error,
        });
      }
      throw error;
    }
    return journal;
  }

  /**
   * The lock of core/lock.ts, as the config file has: created exclusively, holding the pid, the
   * time and where the holder runs (host, boot id, PID namespace), and taken over when its owner
   * is dead (a crash or SIGKILL), when it names this very pid (a predecessor's, the pid reused),
   * or, for a lock of this host whose pid cannot be looked up here (another boot or PID
   * namespace), once it has not been refreshed for LOCK_LIVE_WITHIN_MS. Another host's lock is
   * refused, naming both hosts. Never older-than stale: a sync runs for days.
   */
  private lock(): void {
    const got = tryLockSync(this.lockPath, { liveWithinMs: LOCK_LIVE_WITHIN_MS });
    if (!('release' in got)) {
      const owner = got.owner;
      const here = lockHost().host;
      const elsewhere = owner?.host !== undefined && owner.host !== here;
      throw new UsageError(
        `another rfs sync${owner === undefined ? '' : ` (${describeOwner(owner)})`} is using the journal ${this.path}${elsewhere ? `; this is host ${here}` : ''}`,
        {
          hint: elsewhere
            ? `one journal, one sync: stop the one on ${owner?.host}, or give this one its own --journal (if that host is gone for good, delete ${this.lockPath})`
            : 'wait for it to finish, or give this one its own --journal',
        },
      );
    }
    this.held = got;
    // Which file it is, for assertHeld: another sync's lock at the same path is another file.
    this.lockId = fileIdAt(this.lockPath);
    // The lock's time says the holder is alive to a sync of the same host in another PID
    // namespace (a restarted container of the same pod), which cannot look its pid up.
    this.heartbeat = setInterval(() => this.refreshLock(), LOCK_REFRESH_MS);
    this.heartbeat.unref();
  }

  /** Touches the lock, while it is still the one this process made. */
  private refreshLock(): void {
    if (!sameFile(fileIdAt(this.lockPath), this.lockId)) return;
    try {
      const now = new Date(systemClock.now());
      utimesSync(this.lockPath, now, now);
    } catch {
      // Gone between the two calls: assertHeld reports it at the next step.
    }
  }

  /**
   * Checked between recordings: the journal at its path is still the file being written, and
   * the lock is still the one this process made. A deleted journal would take every later step
   * with it; a deleted lock lets a second sync start on the same journal (its compaction then
   * replaces the journal, which the first check also sees).
   */
  assertHeld(): void {
    if (this.fd === undefined) return;
    const { dev, ino } = fstatSync(this.fd);
    const now = fileIdAt(this.path);
    if (!sameFile(now, { dev, ino })) {
      throw new JournalLostError(
        `the journal ${this.path} was ${now === undefined ? 'deleted' : 'replaced by another file'} while rfs sync was using it`,
        { hint: 'another rfs sync or a clean-up may be at work: check, then run rfs sync again (its journal starts afresh)' },
      );
    }
    const lock = fileIdAt(this.lockPath);
    if (!sameFile(lock, this.lockId)) {
      throw new JournalLostError(
        `the lock ${this.lockPath} was ${lock === undefined ? 'deleted' : 'replaced'} while rfs sync held it: another rfs sync could use the journal at the same time`,
        { hint: 'make sure no other rfs sync uses this journal, then run rfs sync again' },
      );
    }
  }

  private unlock(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    // Only a lock this process made: core/lock.ts leaves a replaced one alone.
    this.held?.release();
    this.held = undefined;
  }

  /** Rewrites the file with the pending steps only, atomically (core/atomic-write.ts). */
  private compact(): void {
    const lines: string[] = [];
    const at = this.stamp();
    for (const [id, state] of this.states) {
      if (state.attempts > 0) lines.push(JSON.stringify({ step: 'started', id, attempt: state.attempts, at }));
      if (state.result) lines.push(JSON.stringify({ step: 'result', id, attempt: state.attempts, at, ...state.result }));
      // With its own time and attempt: the backoff counts from the failure, and a later start
      // (attempts above the failed one) still reads as a command that may have run.
      if (state.failure) lines.push(JSON.stringify({ step: 'failed', id, ...state.failure }));
    }
    writeFileAtomicSync(this.path, lines.length > 0 ? `${lines.join('\n')}\n` : '', { mode: 0o600 });
  }

  /** Appends one step and waits until it is on disk. */
  append(entry: JournalEntry): void {
    if (this.fd === undefined) throw new Error('the journal is not open for writing');
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    fsyncSync(this.fd);
    applyEntry(this.states, entry);
  }

  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    this.unlock();
  }
}
