// One pass of the integration loop of api.md: file what the journal says was answered but not
// confirmed, then for every COMPLETED unsynced recording: fetch it by id, run the command,
// file its answer. Every step is journaled before rfs acts on it (see journal.ts).
import { fileRecording, getRecording, listUnsynced } from '../api/recordings.js';
import type { ApiClient } from '../api/types.js';
import { Progress } from '../batch/progress.js';
import { itemError, type ItemResult, type ResultWriter } from '../batch/results.js';
import { runBatch, type ItemRun } from '../batch/runner.js';
import type { Session } from '../core/context.js';
import { ApiError, CancelError } from '../core/errors.js';
import { parseExternalRecord, runCommand } from './exec.js';
import type { ExternalRecord, Journal } from './journal.js';
import type { Backoff } from './backoff.js';
import type { SyncObserver } from './observer.js';

export interface SyncSettings {
  command: string;
  provider: string;
  execTimeoutMs: number;
  /** Recordings to handle in this pass at most (journal refilings included). */
  maxItems?: number;
  /** Leaves out recordings that wait after failures or are parked, and journals failures. */
  backoff?: Backoff;
  observer?: SyncObserver;
}

export interface PassOutcome {
  filed: number;
  failed: number;
  /** Ctrl-C stopped the pass before it had handled every recording. */
  interrupted: boolean;
  /** What it was doing then, when it was doing something. */
  interruptedDuring?: string;
}

/** A recording to handle: an answer from the journal to file, or one listed as unsynced. */
type PassItem =
  | { from: 'journal'; id: string; record: ExternalRecord; attempts: number }
  | { from: 'listing'; id: string; n: number; total: number };

/** For the commands: they are not stopped by Ctrl-C (see handle). */
const NEVER = new AbortController().signal;

function now(): string {
  return new Date().toISOString();
}

function failure(code: string, title: string): ItemResult['error'] {
  return { status: null, code, title, requestId: null };
}

export async function runPass(
  ctx: Session,
  client: ApiClient,
  journal: Journal,
  s: SyncSettings,
  writer: ResultWriter,
): Promise<PassOutcome> {
  // Before anything of the pass, and before each recording: see journal.ts, assertHeld.
  journal.assertHeld();
  let handled = 0;
  const room = (): boolean => s.maxItems === undefined || handled < s.maxItems;
  let listing = false;
  const progress = await Progress.start(ctx.ui, 'sync: starting a pass');

  async function* recordings(): AsyncGenerator<PassItem> {
    // 1. Answers received before a crash (or a failed filing) are filed first, never re-run.
    for (const [id, state] of [...journal.states]) {
      if (!state.result || !room()) continue;
      handled += 1;
      yield { from: 'journal', id, record: state.result, attempts: state.attempts };
    }

    // 2. Every COMPLETED, unsynced recording (all pages).
    listing = true;
    progress.update('listing COMPLETED, unsynced recordings');
    const ids: string[] = [];
    for await (const item of listUnsynced(client, ctx.signal)) {
      s.observer?.listed(item);
      ids.push(item.id);
    }
    listing = false;
    for (const [n, id] of ids.entries()) {
      if (!room()) return;
      if (journal.states.get(id)?.result) continue; // filed (or tried) in step 1 of this pass
      if (s.backoff?.skip(id)) continue;
      handled += 1;
      yield { from: 'listing', id, n: n + 1, total: ids.length };
    }
  }

  const file = async (id: string, record: ExternalRecord, attempt: number, from: 'command' | 'journal'): Promise<ItemResult> => {
    progress.update(`${id}: filing ${record.externalId}`);
    try {
      const answer = await fileRecording(client, id, { provider: s.provider, ...record }, ctx.signal);
      journal.append({ step: 'filed', id, externalId: record.externalId, syncCount: answer.data.syncCount, at: now() });
      return {
        id,
        ok: true,
        externalId: record.externalId,
        replayed: answer.meta.replayed,
        syncCount: answer.data.syncCount,
        attempt,
        from,
      };
    } catch (error) {
      // Interrupted, the recording is not known to be gone: nothing is journaled.
      if (error instanceof CancelError || ctx.signal.aborted) throw error;
      // The answer stays in the journal and is filed on the next pass, without the command,
      // unless the recording is gone for good.
      if (error instanceof ApiError && error.status === 404) {
        journal.append({ step: 'dropped', id, reason: `${error.status} ${error.code}`, at: now() });
      }
      return { id, ok: false, externalId: record.externalId, attempt, from, stage: 'filing', error: itemError(error) };
    }
  };

  const handle = async (item: PassItem, run: ItemRun): Promise<ItemResult> => {
    // Thrown, it ends the batch: every later step would be lost or shared with another sync.
    journal.assertHeld();
    if (item.from === 'journal') {
      run.doing(`filing ${item.id} from the journal`);
      return file(item.id, item.record, item.attempts, 'journal');
    }
    const { id, n, total } = item;
    progress.update(`${n}/${total} ${id}: fetching`);
    run.doing(`fetching ${id}`);
    let detail: unknown;
    try {
      detail = await getRecording(client, id, { signal: ctx.signal });
    } catch (error) {
      return { id, ok: false, stage: 'fetch', error: itemError(error) };
    }

    const attempt = (journal.states.get(id)?.attempts ?? 0) + 1;
    journal.append({ step: 'started', id, attempt, at: now() });
    run.doing(`running the command for ${id} (attempt ${attempt}; it runs again with RFS_ATTEMPT=${attempt + 1} next time)`);
    progress.update(`${n}/${total} ${id}: running the command`);
    const ended = s.observer?.commandStarted(id);
    const ran = await runCommand({
      command: s.command,
      stdin: `${JSON.stringify(detail)}\n`,
      env: { ...ctx.io.env, RFS_RECORDING_ID: id, RFS_ATTEMPT: String(attempt) },
      timeoutMs: s.execTimeoutMs,
      // Ctrl-C and SIGTERM let a running command finish, up to --exec-timeout, and its answer
      // is journaled (cli.md, sync); a second Ctrl-C ends rfs, and the command with it (exec.ts).
      signal: NEVER,
    });
    ended?.(ran);
    if (ran.timedOut || ran.code !== 0) {
      const why = ran.timedOut
        ? `the command did not finish within ${s.execTimeoutMs / 1000} s and was stopped`
        : ran.code === null
          ? `the command was killed by ${ran.signal ?? 'a signal'}`
          : `the command exited ${ran.code}`;
      return {
        id,
        ok: false,
        attempt,
        stage: 'command',
        error: failure(ran.timedOut ? 'COMMAND_TIMEOUT' : 'COMMAND_FAILED', ran.stderr ? `${why}: ${ran.stderr}` : why),
      };
    }
    const record = ran.stdoutTooLong ? { problem: 'the command printed more than 1 MiB' } : parseExternalRecord(ran.stdout);
    if ('problem' in record) return { id, ok: false, attempt, stage: 'command', error: failure('COMMAND_OUTPUT', record.problem) };
    journal.append({ step: 'result', id, attempt, at: now(), ...record });
    if (ctx.signal.aborted) {
      run.doing(`running the command for ${id}, which answered: its answer is in the journal and is filed on the next run`);
      throw new CancelError('interrupted');
    }
    run.doing(`filing ${id} (the command's answer is in the journal and is filed on the next run)`);
    return file(id, record, attempt, 'command');
  };

  // A pass has always gone on past a refused key, reporting each recording (exit 8): stopping
  // it would change what sync does, which is for its own change, not this runner's.
  const work = s.backoff ? s.backoff.wrap(handle) : handle;
  const report = await runBatch({ items: recordings(), work, writer, signal: ctx.signal, progress, stopWhenKeyRefused: false });
  const outcome: PassOutcome = { filed: report.ok, failed: report.failed, interrupted: report.end.how === 'interrupted' };
  if (report.end.how === 'interrupted') {
    const during = report.end.inFlight.map((f) => f.doing).join(', ');
    if (during !== '') outcome.interruptedDuring = during;
    else if (listing) outcome.interruptedDuring = 'listing unsynced recordings';
  }
  return outcome;
}
