// A lock file shared by processes: whoever creates it (O_EXCL, so exactly one can) owns what
// it guards until it deletes it. It holds the owner's pid and the time it was taken, so that a
// lock left behind by a crash or a SIGKILL is recognised and taken over: its owner is dead, or
// (for a lock guarding a short step, when a pid may have been reused) it is older than the
// step could ever take. No dependency (proper-lockfile judges staleness by mtime alone, so a
// dead owner's lock blocks until it ages out, and its synchronous lock never waits).
//
// A pid means something only on the machine, and in the PID namespace, that gave it: a lock on
// a volume that two hosts (two pods) can mount also names its host (the hostname, which is the
// pod's name in Kubernetes), the kernel's boot id and the PID namespace. Another host's lock is
// never judged from here; the same host after a reboot (another boot id) holds nothing any more;
// the same host and boot in another PID namespace (a container restarted in the same pod) is
// judged by how recently its holder refreshed the lock (`liveWithinMs`), since its pid is not
// ours to look up.
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { type Clock, systemClock } from './clock.js';
import { UsageError } from './errors.js';

export interface LockOwner {
  pid: number;
  /** When the lock was taken (the file's own time when its text gives none). */
  since: Date;
  /** The holder's host name, boot id and PID namespace (a lock of an older rfs has none). */
  host?: string;
  boot?: string;
  pidNamespace?: string;
}

/** Where this process runs, as a lock records it. */
export interface LockHost {
  host: string;
  boot: string | undefined;
  pidNamespace: string | undefined;
}

function readOptional(read: () => string): string | undefined {
  try {
    const text = read().trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

let thisHost: LockHost | undefined;
/**
 * This process's host: the hostname (a pod's is its name), the boot id of Linux
 * (/proc/sys/kernel/random/boot_id, new at every boot) and the PID namespace (/proc/self/ns/pid).
 * Elsewhere the last two are unknown, and a lock is judged by its host and pid alone.
 */
export function lockHost(): LockHost {
  thisHost ??= {
    host: hostname().replace(/[^\x21-\x7e]/g, '?') || 'localhost',
    boot: readOptional(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidNamespace: readOptional(() => readlinkSync('/proc/self/ns/pid')),
  };
  return thisHost;
}

export interface HeldLock {
  /** Deletes the lock if it is still this process's (a taken-over lock is left alone). */
  release(): void;
}

export interface TryLockOptions {
  /** A lock older than this is stale whoever holds it (default: only a dead owner's is). */
  staleMs?: number;
  /**
   * For a holder that refreshes its lock's time (the sync journal): a lock of this host and boot
   * but another PID namespace, whose pid cannot be looked up here, is live while its file was
   * touched within this many ms. Without it such a lock is live (until `staleMs`).
   */
  liveWithinMs?: number;
}

export interface LockOptions extends TryLockOptions {
  /** How long to wait for a live owner before giving up with LockBusyError. */
  waitMs: number;
  /** Whose time the wait is measured in and slept on (tests pass one that moves at once). */
  clock?: Clock;
}

/**
 * What a lock is stamped with and judged by: the machine's time of core/clock.ts, never a run's
 * injected clock, since other processes read the stamp and the file times are the machine's.
 */
const machineNow = (): number => systemClock.now();

/** The lock stayed with a live owner for the whole wait. */
export class LockBusyError extends Error {
  constructor(
    readonly lockPath: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(`the lock ${lockPath} is held${owner ? ` by ${describeOwner(owner)} since ${owner.since.toISOString()}` : ''}`);
    this.name = 'LockBusyError';
  }
}

// Between the O_EXCL create and the write of its text a lock is briefly empty: an empty or
// unreadable lock is stale only once it is older than this.
const UNREADABLE_GRACE_MS = 5_000;
// Taking over a stale lock is itself guarded (see breakStale); a breaker left by a process
// killed in those few microseconds is removed after this.
const BREAKER_STALE_MS = 5_000;

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A lock path that holds something no rfs made: a link, a FIFO, a folder (exit 2, naming it). */
export class LockFileError extends UsageError {}

/**
 * The lock's text, or undefined when it is gone. Opened without following a link and without
 * waiting (a FIFO at the name would block the read, and a signal, forever), and read only when
 * it is a regular file: anything else there was not made by rfs.
 */
function readLock(lockPath: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(lockPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    if (errno(error) === 'ELOOP') throw notALock(lockPath, 'a symbolic link');
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw notALock(lockPath, 'not a regular file');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function notALock(lockPath: string, what: string): LockFileError {
  return new LockFileError(`${lockPath} is ${what}, which no rfs made: remove it, then run again`);
}

function ageMs(file: string, now: number): number | undefined {
  try {
    return now - statSync(file).mtimeMs;
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** "pid 12 on host rfs-sync-0", the host only when the lock names one. */
export function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.host === undefined ? '' : ` on host ${owner.host}`}`;
}

/** The text of a lock this process takes: pid and time, then `host=`, `boot=` and `pidns=` lines. */
function lockText(now: number): string {
  const here = lockHost();
  const lines = [String(process.pid), new Date(now).toISOString(), `host=${here.host}`];
  if (here.boot !== undefined) lines.push(`boot=${here.boot}`);
  if (here.pidNamespace !== undefined) lines.push(`pidns=${here.pidNamespace}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `<pid>\n<ISO time>\n` then `name=value` lines (host, boot, pidns); older locks hold the pid
 * and time, or the pid alone.
 */
function parseOwner(text: string, lockPath: string, now: number): LockOwner | undefined {
  const [pidText, sinceText, ...rest] = text.split('\n');
  const pid = Number(pidText?.trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const fields = new Map<string, string>();
  for (const line of rest) {
    const equals = line.indexOf('=');
    if (equals > 0) fields.set(line.slice(0, equals), line.slice(equals + 1).trim());
  }
  const where: Partial<Pick<LockOwner, 'host' | 'boot' | 'pidNamespace'>> = {};
  const host = fields.get('host');
  if (host) where.host = host.replace(/[^\x21-\x7e]/g, '?');
  const boot = fields.get('boot');
  if (boot) where.boot = boot;
  const pidNamespace = fields.get('pidns');
  if (pidNamespace) where.pidNamespace = pidNamespace;
  const at = sinceText ? Date.parse(sinceText.trim()) : Number.NaN;
  if (!Number.isNaN(at)) return { pid, since: new Date(at), ...where };
  try {
    return { pid, since: statSync(lockPath).mtime, ...where };
  } catch {
    return { pid, since: new Date(now), ...where };
  }
}

/** Whether the owner's pid is one this process can look up: the same host, boot and PID namespace. */
function samePidSpace(owner: LockOwner, here: LockHost): boolean | 'other host' {
  if (owner.host === undefined) return true; // an older rfs's lock: judged as it always was
  if (owner.host !== here.host) return 'other host';
  const differ = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a !== b;
  return !differ(owner.boot, here.boot) && !differ(owner.pidNamespace, here.pidNamespace);
}

function isStale(owner: LockOwner | undefined, lockPath: string, options: TryLockOptions, now: number): boolean {
  if (owner === undefined) return (ageMs(lockPath, now) ?? 0) > UNREADABLE_GRACE_MS;
  const olderThanStale = options.staleMs !== undefined && now - owner.since.getTime() > options.staleMs;
  const here = lockHost();
  const space = samePidSpace(owner, here);
  // Another host's pid means nothing here, and that host may be running: only it releases its lock.
  if (space === 'other host') return olderThanStale;
  if (!space) {
    // This host in another PID namespace (a restarted container) or after a reboot: its pid
    // cannot be looked up here. A holder that refreshes its lock is live while it does, which
    // also covers two hosts that share a name (two namespaces' pods of one name on one volume).
    if (options.liveWithinMs !== undefined) return (ageMs(lockPath, now) ?? 0) > options.liveWithinMs;
    // Without refreshes, another boot id is enough: nothing of the old boot runs any more.
    if (owner.boot !== undefined && here.boot !== undefined && owner.boot !== here.boot) return true;
    return olderThanStale;
  }
  // This process never waits on itself (withLock queues its own callers first): a lock with
  // our pid was left by an earlier process that had the same pid (containers reuse them).
  if (owner.pid === process.pid || !processAlive(owner.pid)) return true;
  return olderThanStale;
}

/**
 * Looks at a lock without taking, breaking or touching it (rfs doctor): undefined when there is
 * none, else its owner and whether a taker would judge it stale.
 */
export function inspectLock(lockPath: string, options: TryLockOptions = {}): { owner: LockOwner | undefined; stale: boolean } | undefined {
  const seen = readLock(lockPath);
  if (seen === undefined) return undefined;
  const now = machineNow();
  const owner = parseOwner(seen, lockPath, now);
  return { owner, stale: isStale(owner, lockPath, options, now) };
}

/**
 * Deletes a lock judged stale, unless it changed since it was judged: two processes may judge
 * the same stale lock, and the slower must not delete the fresh lock the faster then took. So
 * only the holder of a second lock (the breaker) deletes, after reading the lock again.
 */
function breakStale(lockPath: string, judged: string, now: number): void {
  const breaker = `${lockPath}.break`;
  let fd: number;
  try {
    fd = openSync(breaker, 'wx', 0o600);
  } catch (error) {
    if (errno(error) !== 'EEXIST') throw error;
    // Someone else is breaking it; theirs is the retry's to see.
    if ((ageMs(breaker, now) ?? 0) > BREAKER_STALE_MS) {
      try {
        unlinkSync(breaker);
      } catch {
        // Gone already.
      }
    }
    return;
  }
  closeSync(fd);
  try {
    if (readLock(lockPath) === judged) unlinkSync(lockPath);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw error;
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      // Judged stale and removed by another process while we were stopped.
    }
  }
}

/**
 * One attempt: the lock (taking over a stale one), or the live owner that holds it. Never
 * waits, so a synchronous caller that refuses rather than waits (the sync journal) can use it.
 */
export function tryLockSync(lockPath: string, options: TryLockOptions = {}): HeldLock | { owner: LockOwner | undefined } {
  const text = lockText(machineNow());
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx', 0o600);
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
      const seen = readLock(lockPath);
      if (seen === undefined) continue; // released just now
      const now = machineNow();
      const owner = parseOwner(seen, lockPath, now);
      if (!isStale(owner, lockPath, options, now)) return { owner };
      breakStale(lockPath, seen, now);
      continue;
    }
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return {
      release() {
        try {
          if (readLock(lockPath) === text) unlinkSync(lockPath);
        } catch {
          // Gone already.
        }
      },
    };
  }
  const seen = readLock(lockPath);
  return { owner: seen === undefined ? undefined : parseOwner(seen, lockPath, machineNow()) };
}

// Callers in this process queue here, per lock file, before they try the file: they never
// contend with each other through it, and a lock naming this pid is always a predecessor's.
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `step` holding the lock: waits (polling, with a growing pause) while a live owner holds
 * it, for at most `waitMs`, then throws LockBusyError. The lock is released however `step` ends.
 */
export async function withLock<T>(lockPath: string, step: () => T | Promise<T>, options: LockOptions): Promise<T> {
  const before = queues.get(lockPath) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(() => holding(lockPath, step, options));
  const settled = mine.catch(() => undefined);
  queues.set(lockPath, settled);
  try {
    return await mine;
  } finally {
    if (queues.get(lockPath) === settled) queues.delete(lockPath);
  }
}

async function holding<T>(lockPath: string, step: () => T | Promise<T>, options: LockOptions): Promise<T> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.waitMs;
  let pause = 5;
  for (;;) {
    const got = tryLockSync(lockPath, options);
    if ('release' in got) {
      try {
        return await step();
      } finally {
        got.release();
      }
    }
    if (clock.now() >= deadline) throw new LockBusyError(lockPath, got.owner);
    // Jittered, so that two waiters do not retry in step.
    await clock.sleep(Math.min(pause * (0.5 + clock.random()), Math.max(1, deadline - clock.now())));
    pause = Math.min(pause * 2, 100);
  }
}
