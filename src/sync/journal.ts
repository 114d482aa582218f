// The sync journal (cli.md, sync): one JSON line per step, each flushed to disk (fsync) before
// rfs acts on it, so that a run killed at any instant can tell, per recording, whether the
// command may have run (`started`), what it answered (`result`), and whether the filing was
// confirmed (`filed`), and that a command ran and failed (`failed`, for the backoff). An older
// rfs reads a `failed` line as a damaged one: it reports it, skips it and runs the command again
// (as for a bare `started`), which is what it did before failures were journaled.
// One process at a time owns a journal, through a lock file beside it.
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomicSync } from '../core/atomic-write.js';
import { UsageError } from '../core/errors.js';
import { processAlive } from '../core/lock.js';
import type { Ui } from '../core/ui.js';
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
  const state = env.XDG_STATE_HOME?.startsWith('/') ? env.XDG_STATE_HOME : join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'rfs', `sync-${profile.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
}

function isEntry(value: unknown): value is JournalEntry {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || v.id === '') return false;
  switch (v.step) {
    case 'started':
      return typeof v.attempt === 'number';
    case 'result':
      return typeof v.attempt === 'number' && typeof v.externalId === 'string' && v.externalId !== '';
    case 'filed':
      return typeof v.externalId === 'string';
    case 'dropped':
      return true;
    case 'failed': {
      const e = v.error as Record<string, unknown> | null;
      return (
        typeof v.attempt === 'number' &&
        typeof v.failures === 'number' &&
        typeof v.at === 'string' &&
        e !== null &&
        typeof e === 'object' &&
        typeof e.code === 'string' &&
        typeof e.title === 'string'
      );
    }
    default:
      return false;
  }
}

/** One step into per-recording state: shared by the replay and by append. */
function applyEntry(states: Map<string, RecordingState>, entry: JournalEntry): void {
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

/** Replays journal text into per-recording state; damaged lines are reported, never fatal. */
export function replayJournal(text: string): { states: Map<string, RecordingState>; problems: JournalProblem[] } {
  const states = new Map<string, RecordingState>();
  const problems: JournalProblem[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const last = index === lines.length - 1;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      problems.push({
        line: index + 1,
        message: last ? 'the last line is incomplete (rfs was stopped while writing it); skipped' : 'the line is not JSON; skipped',
      });
      return;
    }
    if (!isEntry(entry)) {
      problems.push({ line: index + 1, message: 'the line is not a journal step; skipped' });
      return;
    }
    // An answer rfs could not send (it refuses such answers before journaling them, so the line
    // was written by something else): the command runs again rather than rfs crashing on it.
    if (entry.step === 'result' && metadataTooDeep(entry.metadata)) {
      problems.push({ line: index + 1, message: `the answer's metadata is nested more than ${MAX_METADATA_DEPTH} levels deep; skipped` });
      return;
    }
    applyEntry(states, entry);
  });
  return { states, problems };
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

  private constructor(
    readonly path: string,
    readonly states: Map<string, RecordingState>,
    readonly problems: JournalProblem[],
  ) {
    this.lockPath = `${path}.lock`;
  }

  /** Says each damaged line the replay skipped, as sync, its dry run and sync status all do. */
  warnProblems(ui: Pick<Ui, 'warn'>): void {
    for (const p of this.problems) ui.warn(`journal ${this.path}, line ${p.line}: ${p.message}`);
  }

  /** Reads the journal (it may not exist yet) without taking it: for --dry-run. */
  static peek(path: string): Journal {
    const file = resolve(path);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const { states, problems } = replayJournal(text);
    return new Journal(file, states, problems);
  }

  /**
   * Takes the journal for this process: the lock first (another live rfs sync on the same
   * journal is refused), then the replay, then a compacted rewrite holding only what is still
   * pending, which also clears a damaged last line.
   */
  static open(path: string): Journal {
    const file = resolve(path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const journal = Journal.peek(file);
    journal.lock();
    try {
      // Re-read under the lock: the peek may have raced another process's last writes.
      const { states, problems } = replayJournal(existsSync(file) ? readFileSync(file, 'utf8') : '');
      journal.states.clear();
      for (const [id, state] of states) journal.states.set(id, state);
      journal.problems.splice(0, journal.problems.length, ...problems);
      journal.compact();
      journal.fd = openSync(file, 'a', 0o600);
    } catch (error) {
      journal.unlock();
      throw error;
    }
    return journal;
  }

  private lock(): void {
    for (let tries = 0; tries < 2; tries++) {
      try {
        const fd = openSync(this.lockPath, 'wx', 0o600);
        try {
          writeSync(fd, `${process.pid}\n`);
          const { dev, ino } = fstatSync(fd);
          this.lockId = { dev, ino };
        } finally {
          closeSync(fd);
        }
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = Number(readFileSync(this.lockPath, 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
          throw new UsageError(`another rfs sync (pid ${pid}) is using the journal ${this.path}`, {
            hint: 'wait for it to finish, or give this one its own --journal',
          });
        }
        // The owner died (a crash or SIGKILL): its lock is stale.
        unlinkSync(this.lockPath);
      }
    }
    throw new UsageError(`could not lock the journal ${this.path}`);
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
    try {
      // Only a lock this process made: a replaced one belongs to another sync.
      const lock = fileIdAt(this.lockPath);
      if (this.lockId !== undefined && !sameFile(lock, this.lockId)) return;
      if (readFileSync(this.lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(this.lockPath);
    } catch {
      // Already gone.
    }
  }

  /** Rewrites the file with the pending steps only, atomically (core/atomic-write.ts). */
  private compact(): void {
    const lines: string[] = [];
    const at = new Date().toISOString();
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
