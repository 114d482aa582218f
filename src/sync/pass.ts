// One pass of the integration loop of api.md: file what the journal says was answered but not
// confirmed, then for every COMPLETED unsynced recording: fetch it by id, run the command,
// file its answer. Every step is journaled before rfs acts on it (see journal.ts).
import { fileRecording, getRecording, listRecordings } from '../api/recordings.js';
import type { ApiClient } from '../api/types.js';
import { itemError, type ItemResult, type ResultWriter } from '../batch/results.js';
import type { Session } from '../core/context.js';
import { ApiError, CancelError } from '../core/errors.js';
import type { Spinner } from '../core/ui.js';
import { parseExternalRecord, runCommand } from './exec.js';
import type { ExternalRecord, Journal } from './journal.js';

export interface SyncSettings {
  command: string;
  provider: string;
  execTimeoutMs: number;
  /** Recordings to handle in this pass at most (journal refilings included). */
  maxItems?: number;
}

export interface PassOutcome {
  filed: number;
  failed: number;
  /** Set when Ctrl-C stopped the pass: what it was doing then. */
  interruptedDuring?: string;
}

function now(): string {
  return new Date().toISOString();
}

function failure(code: string, title: string): ItemResult['error'] {
  return { status: null, code, title, requestId: null };
}

export async function runPass(ctx: Session, client: ApiClient, journal: Journal, s: SyncSettings, writer: ResultWriter, spinner: Spinner): Promise<PassOutcome> {
  const outcome: PassOutcome = { filed: 0, failed: 0 };
  let handled = 0;
  const room = (): boolean => s.maxItems === undefined || handled < s.maxItems;
  const report = async (result: ItemResult): Promise<void> => {
    if (result.ok) outcome.filed += 1;
    else outcome.failed += 1;
    await writer.write(result);
  };

  const file = async (id: string, record: ExternalRecord, attempt: number, from: 'command' | 'journal'): Promise<void> => {
    spinner.update(`${id}: filing ${record.externalId}`);
    try {
      const answer = await fileRecording(client, id, { provider: s.provider, ...record }, ctx.signal);
      journal.append({ step: 'filed', id, externalId: record.externalId, syncCount: answer.data.syncCount, at: now() });
      await report({ id, ok: true, externalId: record.externalId, replayed: answer.meta.replayed, syncCount: answer.data.syncCount, attempt, from });
    } catch (error) {
      if (error instanceof CancelError || ctx.signal.aborted) throw error;
      // The answer stays in the journal and is filed on the next pass, without the command,
      // unless the recording is gone for good.
      if (error instanceof ApiError && error.status === 404) {
        journal.append({ step: 'dropped', id, reason: `${error.status} ${error.code}`, at: now() });
      }
      await report({ id, ok: false, externalId: record.externalId, attempt, from, stage: 'filing', error: itemError(error) });
    }
  };

  try {
    // 1. Answers received before a crash (or a failed filing) are filed first, never re-run.
    for (const [id, state] of [...journal.states]) {
      if (!state.result || !room()) continue;
      handled += 1;
      outcome.interruptedDuring = `filing ${id} from the journal`;
      await file(id, state.result, state.attempts, 'journal');
    }

    // 2. Every COMPLETED, unsynced recording (all pages).
    outcome.interruptedDuring = 'listing unsynced recordings';
    spinner.update('listing COMPLETED, unsynced recordings');
    const ids: string[] = [];
    for await (const item of listRecordings(client, { status: 'COMPLETED', syncState: 'unsynced', limit: 100, all: true, signal: ctx.signal })) {
      ids.push(item.id);
    }

    for (const [n, id] of ids.entries()) {
      if (!room()) break;
      if (ctx.signal.aborted) throw new CancelError('interrupted');
      if (journal.states.get(id)?.result) continue; // filed (or tried) in step 1 of this pass
      handled += 1;
      spinner.update(`${n + 1}/${ids.length} ${id}: fetching`);
      outcome.interruptedDuring = `fetching ${id}`;
      let detail: unknown;
      try {
        detail = await getRecording(client, id, { signal: ctx.signal });
      } catch (error) {
        if (error instanceof CancelError || ctx.signal.aborted) throw error;
        await report({ id, ok: false, stage: 'fetch', error: itemError(error) });
        continue;
      }

      const attempt = (journal.states.get(id)?.attempts ?? 0) + 1;
      journal.append({ step: 'started', id, attempt, at: now() });
      outcome.interruptedDuring = `running the command for ${id} (attempt ${attempt}; it runs again with RFS_ATTEMPT=${attempt + 1} next time)`;
      spinner.update(`${n + 1}/${ids.length} ${id}: running the command`);
      const run = await runCommand({
        command: s.command,
        stdin: `${JSON.stringify(detail)}\n`,
        env: { ...ctx.io.env, RFS_RECORDING_ID: id, RFS_ATTEMPT: String(attempt) },
        timeoutMs: s.execTimeoutMs,
        signal: ctx.signal,
      });
      if (ctx.signal.aborted) throw new CancelError('interrupted');
      if (run.timedOut || run.code !== 0) {
        const why = run.timedOut
          ? `the command did not finish within ${s.execTimeoutMs / 1000} s and was stopped`
          : run.code === null
            ? `the command was killed by ${run.signal ?? 'a signal'}`
            : `the command exited ${run.code}`;
        await report({
          id,
          ok: false,
          attempt,
          stage: 'command',
          error: failure(run.timedOut ? 'COMMAND_TIMEOUT' : 'COMMAND_FAILED', run.stderr ? `${why}: ${run.stderr}` : why),
        });
        continue;
      }
      const record = run.stdoutTooLong ? { problem: 'the command printed more than 1 MiB' } : parseExternalRecord(run.stdout);
      if ('problem' in record) {
        await report({ id, ok: false, attempt, stage: 'command', error: failure('COMMAND_OUTPUT', record.problem) });
        continue;
      }
      journal.append({ step: 'result', id, attempt, at: now(), ...record });
      outcome.interruptedDuring = `filing ${id} (the command's answer is in the journal and is filed on the next run)`;
      await file(id, record, attempt, 'command');
    }
    delete outcome.interruptedDuring;
    return outcome;
  } catch (error) {
    if (error instanceof CancelError || ctx.signal.aborted) return outcome;
    throw error;
  }
}
