// One pass of the integration loop of api.md: file what the journal says was answered but not
// confirmed, then for every COMPLETED unsynced recording: fetch it by id, run the command,
// file its answer. Every step is journaled before rfs acts on it (see journal.ts).
import { getMaxListeners, setMaxListeners } from 'node:events';
import { fileRecording, getRecording } from '../api/recordings.js';
import type { ApiClient } from '../api/types.js';
import { Progress } from '../batch/progress.js';
import { itemError, type ItemError, type ItemResult, type ResultWriter } from '../batch/results.js';
import { runBatch, type ItemRun } from '../batch/runner.js';
import type { Session } from '../core/context.js';
import { ApiError, CancelError, ContractError } from '../core/errors.js';
import { checkFiling } from '../shared/filing.js';
import { parseExternalRecord, runCommand } from './exec.js';
import { execEnvironment } from './exec-env.js';
import type { ExternalRecord, Journal } from './journal.js';
import { type PassItem, passItems, type SyncOrder } from './listing.js';
import type { Backoff } from './backoff.js';
import type { SyncObserver } from './observer.js';

export interface SyncSettings {
  command: string;
  provider: string;
  execTimeoutMs: number;
  /** --exec-env: variables passed to the command beside the default allow-list (exec-env.ts). */
  execEnv: readonly string[];
  /** Variables holding a secret (--secret-env's): passed only when --exec-env names them exactly. */
  execSecrets?: readonly string[];
  /** Recordings to handle in this pass at most (journal refilings included). */
  maxItems?: number;
  /** Commands run at once, at most (--concurrency); every request still goes through the one pacer. */
  concurrency: number;
  order: SyncOrder;
  /** Leaves out recordings that wait after failures or are parked, and journals failures. */
  backoff?: Backoff;
  observer?: SyncObserver;
}

/** Abort listeners on the run's signal: per command slot (a fetch and a filing), and beside them (listing, spinner, the run). */
const LISTENERS_PER_SLOT = 2;
const LISTENERS_BESIDE = 10;

export interface PassOutcome {
  filed: number;
  failed: number;
  /** Ctrl-C stopped the pass before it had handled every recording. */
  interrupted: boolean;
  /** What it was doing then, when it was doing something. */
  interruptedDuring?: string;
}

function failure(code: string, title: string): ItemError {
  return { status: null, code, title, requestId: null };
}

/**
 * Why a listed recording's id cannot be handled, if it cannot: an empty id names no recording
 * (its path would be `/recordings//filings`), and an environment variable (RFS_RECORDING_ID)
 * cannot hold a NUL byte.
 */
export function unusableId(id: string): string | undefined {
  if (id === '') return 'the service listed a recording with an empty id';
  if (id.includes('\0')) return 'the service listed a recording whose id holds a NUL byte, which RFS_RECORDING_ID cannot carry';
  return undefined;
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
  // Each request in flight listens on the run's signal until it is answered: up to one per
  // command slot, plus the listing's pages and a filing each. That many is the design, not a
  // leak, and Node's warning at 11 would be a line of text in a --log-format json stream.
  setMaxListeners(Math.max(getMaxListeners(ctx.signal), LISTENERS_PER_SLOT * s.concurrency + LISTENERS_BESIDE), ctx.signal);
  let listing = false;
  const progress = await Progress.start(ctx.ui, 'sync: starting a pass');
  const items = passItems(client, journal.states, {
    order: s.order,
    maxItems: s.maxItems,
    signal: ctx.signal,
    // Waiting after failures, or parked: left out of this pass, and not counted in --max-items.
    ...(s.backoff ? { skip: (id: string) => s.backoff?.skip(id) === true } : {}),
    ...(s.observer ? { onListed: (item: { id: string; createdAt: string }) => s.observer?.listed(item) } : {}),
    onListing: (now) => {
      listing = now;
      if (now) progress.update('listing COMPLETED, unsynced recordings');
    },
  });
  const file = async (id: string, record: ExternalRecord, attempt: number, from: 'command' | 'journal'): Promise<ItemResult> => {
    progress.update(`${id}: filing ${record.externalId}`);
    try {
      const answer = await fileRecording(client, id, { provider: s.provider, ...record }, ctx.signal);
      journal.append({ step: 'filed', id, externalId: record.externalId, syncCount: answer.data.syncCount, at: journal.stamp() });
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
        journal.append({ step: 'dropped', id, reason: `${error.status} ${error.code}`, at: journal.stamp() });
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
    const { id, n } = item;
    // Handed to the command in its environment and named in the request paths: an id that
    // cannot be is the service's mistake about this recording alone, not the run's.
    const unusable = unusableId(id);
    if (unusable !== undefined)
      return { id, ok: false, stage: 'fetch', error: itemError(new ContractError(unusable, { path: 'data[].id' })) };
    progress.update(`#${n} ${id}: fetching`);
    run.doing(`fetching ${id}`);
    let detail: unknown;
    try {
      detail = await getRecording(client, id, { signal: ctx.signal });
    } catch (error) {
      if (error instanceof CancelError || ctx.signal.aborted) throw error;
      return { id, ok: false, stage: 'fetch', error: itemError(error) };
    }

    const attempt = (journal.states.get(id)?.attempts ?? 0) + 1;
    journal.append({ step: 'started', id, attempt, at: journal.stamp() });
    run.doing(`running the command for ${id} (attempt ${attempt}; it runs again with RFS_ATTEMPT=${attempt + 1} next time)`);
    progress.update(`#${n} ${id}: running the command`);
    const ended = s.observer?.commandStarted(id);
    const ran = await runCommand({
      command: s.command,
      stdin: `${JSON.stringify(detail)}\n`,
      env: execEnvironment(ctx.io.env, s.execEnv, { RFS_RECORDING_ID: id, RFS_ATTEMPT: String(attempt) }, s.execSecrets),
      timeoutMs: s.execTimeoutMs,
      // No signal: Ctrl-C and SIGTERM let a running command finish, up to --exec-timeout, and
      // its answer is journaled (cli.md, sync); a second Ctrl-C ends rfs, and the command with it
      // (exec.ts).
    });
    ended?.(ran);
    // Stopped for printing too much, it ends by rfs's signal: what it printed is the failure.
    if (ran.stdoutTooLong) {
      return {
        id,
        ok: false,
        attempt,
        stage: 'command',
        error: failure('COMMAND_OUTPUT', 'the command printed more than 1 MiB and was stopped'),
      };
    }
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
    const record = parseExternalRecord(ran.stdout);
    if ('problem' in record) return { id, ok: false, attempt, stage: 'command', error: failure('COMMAND_OUTPUT', record.problem) };
    // A filing the service would refuse, or whose answer could not be read back, fails here as
    // the command's answer: journaled as a result, it would be sent again on every pass.
    const checked = checkFiling({ provider: s.provider, ...record }, ctx.clock.now());
    if ('problem' in checked) return { id, ok: false, attempt, stage: 'command', error: failure('COMMAND_OUTPUT', checked.problem) };
    journal.append({ step: 'result', id, attempt, at: journal.stamp(), ...record });
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
  const report = await runBatch({
    items,
    work,
    writer,
    signal: ctx.signal,
    progress,
    stopWhenKeyRefused: false,
    concurrency: s.concurrency,
    ...(s.observer ? { onResult: (result: ItemResult) => s.observer?.result(result) } : {}),
  });
  const outcome: PassOutcome = { filed: report.ok, failed: report.failed, interrupted: report.end.how === 'interrupted' };
  if (report.end.how === 'interrupted') {
    const during = report.end.inFlight.map((f) => f.doing).join(', ');
    if (during !== '') outcome.interruptedDuring = during;
    else if (listing) outcome.interruptedDuring = 'listing unsynced recordings';
  }
  return outcome;
}
