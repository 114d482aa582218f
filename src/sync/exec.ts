// Runs the integration's command through the shell, once per recording: the detail JSON on
// stdin, RFS_RECORDING_ID and RFS_ATTEMPT in its environment, its stdout taken as the external
// record. The command gets a process group of its own, so that stopping it (--exec-timeout,
// Ctrl-C, rfs exiting) reaches everything the shell started, not just the shell: a grandchild
// left running would also hold the output pipes open.
//
// The answer is the command's once its own process (the shell) has exited and its output is
// drained: a background child still holding stdout (`( sleep 60 & )`, common in scripts) does
// not turn a success into a timeout. When a command ends, however it ends, its process group is
// sent SIGTERM, then SIGKILL after a grace: nothing it started is left running. Its environment
// is an allow-list (exec-env.ts).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../shared/json-depth.js';
import { completeInput } from './complete-input.js';

export interface CommandRun {
  /** Exit code, or null when it ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The last part of what it wrote on stderr (enough to report), trimmed. */
  stderr: string;
  timedOut: boolean;
  /** stdout went past the cap and was cut. */
  stdoutTooLong: boolean;
}

export interface CommandOptions {
  command: string;
  /** All of it is on the command's stdin before the command starts (complete-input.ts). */
  stdin: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Stops the command early; sync gives none (Ctrl-C lets commands finish, see pass.ts). */
  signal?: AbortSignal;
}

const MAX_STDOUT = 1024 * 1024;
const STDERR_TAIL = 8 * 1024;
/** After SIGTERM, how long a command may take to stop before SIGKILL. */
const KILL_GRACE_MS = 5000;
/**
 * After the command's own process has ended, how long its output may still take to arrive: then
 * the answer is what it printed. A background process it started can hold the pipes open for as
 * long as it likes (one in a session of its own, `setsid … &`, even out of reach of the group's
 * signals): rfs stops waiting for it.
 */
const DRAIN_MS = 500;

/**
 * The process groups of the commands running now, and one `exit` hook for all of them: if rfs
 * ends while commands run, none outlives it unnoticed. One listener whatever --concurrency is
 * (a listener per command made Node warn of a leak from the 11th on).
 */
const runningGroups = new Set<number>();
/** The groups of commands that have ended, sent SIGTERM, and due SIGKILL after KILL_GRACE_MS. */
const endedGroups = new Map<number, NodeJS.Timeout>();
const onProcessExit = (): void => {
  for (const pid of runningGroups) signalGroup(pid, 'SIGTERM');
  // rfs cannot wait for them any longer.
  for (const pid of endedGroups.keys()) signalGroup(pid, 'SIGKILL');
};
let hooked = false;
function hookExit(): void {
  if (runningGroups.size > 0 || endedGroups.size > 0) {
    if (!hooked) process.on('exit', onProcessExit);
    hooked = true;
  } else if (hooked) {
    process.off('exit', onProcessExit);
    hooked = false;
  }
}

/**
 * What the command started and left behind goes with it: its group is sent SIGTERM now and
 * SIGKILL after KILL_GRACE_MS (or when rfs exits first). A group already empty is not there.
 */
function endGroup(pid: number): void {
  if (!signalGroup(pid, 'SIGTERM')) return;
  const timer = setTimeout(() => {
    endedGroups.delete(pid);
    signalGroup(pid, 'SIGKILL');
    hookExit();
  }, KILL_GRACE_MS);
  timer.unref();
  endedGroups.set(pid, timer);
  hookExit();
}

/** Whether the group still had a process to signal. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // The group is gone already.
  }
}

/** Tracks the command's group while it runs; the answer ends it (endGroup). */
function track(pid: number | undefined): () => void {
  if (pid === undefined) return () => undefined;
  runningGroups.add(pid);
  hookExit();
  return () => {
    if (!runningGroups.delete(pid)) return;
    endGroup(pid);
    hookExit();
  };
}

export function runCommand(o: CommandOptions): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const input = completeInput(o.stdin);
    // A descriptor as stdin is not among spawn's typed forms: its other two streams are pipes.
    const child = ((): ChildProcessByStdio<null, Readable, Readable> => {
      try {
        return spawn(o.command, { shell: true, env: o.env, stdio: [input, 'pipe', 'pipe'], detached: true }) as ChildProcessByStdio<
          null,
          Readable,
          Readable
        >;
      } finally {
        // The command has its own copy of the descriptor (or none was made): this one is done.
        closeSync(input);
      }
    })();
    const untrack = track(child.pid);
    let stdout = '';
    let stdoutTooLong = false;
    let stderr = '';
    let timedOut = false;
    let held = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const cleanUp = (): void => {
      untrack();
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      o.signal?.removeEventListener('abort', onAbort);
    };
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      cleanUp();
      let tail = stderr.trim();
      if (held) tail = `${tail}${tail ? '; ' : ''}a process it started still held its output open`;
      resolve({ code, signal, stdout, stderr: tail, timedOut, stdoutTooLong });
    };
    /** Past the deadline with the command's own process gone: stop waiting for its pipes. */
    const abandonPipes = (): void => {
      if (settled) return;
      held = true;
      child.stdout.destroy();
      child.stderr.destroy();
      finish(exit?.code ?? null, exit?.signal ?? null);
    };

    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
        // Whatever still holds the pipes now is out of the group's reach.
        drainTimer = setTimeout(abandonPipes, DRAIN_MS);
      }, KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      // Ended in time: its output is being drained (the exit handler), its answer kept.
      if (exit !== undefined) return;
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = (): void => stop();
    o.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdoutTooLong) return;
      if (stdout.length + chunk.length <= MAX_STDOUT) {
        stdout += chunk;
        return;
      }
      // Past the cap the answer is refused whatever follows: the command is stopped now, not at
      // --exec-timeout, and its stdout is no longer read (a write into it fails, EPIPE).
      stdoutTooLong = true;
      stdout += chunk.slice(0, Math.max(0, MAX_STDOUT - stdout.length));
      child.stdout.destroy();
      stop();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });

    child.once('error', (error) => {
      if (settled) return;
      settled = true;
      cleanUp();
      reject(error);
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // The command has ended (by itself, or stopped for its deadline or its output): what it
      // printed may follow for a moment, not longer, whoever else holds the pipes.
      if (!settled) drainTimer = setTimeout(abandonPipes, DRAIN_MS);
    });
    child.once('close', (code, signal) => finish(code, signal));
  });
}

/**
 * The external record from the command's stdout: a JSON object with a non-empty `externalId`
 * (and optionally `externalUrl`, `metadata`), or one line that is the externalId itself.
 */
export function parseExternalRecord(
  stdout: string,
): { externalId: string; externalUrl?: string; metadata?: Record<string, unknown> } | { problem: string } {
  const text = stdout.trim();
  if (text === '') return { problem: 'the command printed nothing: it must print the external record (a JSON object or the externalId)' };
  if (text.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { problem: 'the command printed something that starts like JSON but is not valid JSON' };
    }
    const v = value as Record<string, unknown>;
    // An empty or blank one is checkFiling's to refuse (shared/filing.ts), as for every filing.
    if (typeof v.externalId !== 'string') return { problem: 'the JSON the command printed has no "externalId" string' };
    if (v.externalUrl !== undefined && typeof v.externalUrl !== 'string') return { problem: '"externalUrl" must be a string' };
    if (v.metadata !== undefined && (v.metadata === null || typeof v.metadata !== 'object' || Array.isArray(v.metadata))) {
      return { problem: '"metadata" must be a JSON object' };
    }
    // The rule of `rfs file --metadata`: deeper than this, the journal line and the filing could
    // not be written (the stack overflows), so the answer fails its own recording, not the run.
    if (v.metadata !== undefined && nestedDeeperThan(v.metadata, MAX_JSON_DEPTH)) {
      return { problem: `"metadata" is nested more than ${MAX_JSON_DEPTH} levels deep: rfs can neither journal nor file it` };
    }
    return {
      externalId: v.externalId,
      ...(v.externalUrl === undefined ? {} : { externalUrl: v.externalUrl }),
      ...(v.metadata === undefined ? {} : { metadata: v.metadata as Record<string, unknown> }),
    };
  }
  if (text.includes('\n')) return { problem: 'the command printed several lines: print one JSON object, or the externalId alone' };
  return { externalId: text };
}
