// `rfs sync --log-format json` (cli.md, sync): the events of a sync (a pass starting and
// ending, each result, each wait, parking, the summary), in the one schema of
// output/json-log.ts. The run's Ui speaks the same schema (notices, warnings, -v lines).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { WAIT_CHANNEL, type WaitMessage } from '../api/client.js';
import type { ItemError, ItemResult } from '../batch/results.js';
import type { JsonLog, Level, LogError } from '../output/json-log.js';
import type { SyncObserver } from './observer.js';

export interface EventLog extends SyncObserver, JsonLog {}

/** A result line's error as the log's `error` object (no nulls: a field keeps one type). */
function itemErrorObject(e: ItemError): LogError {
  return {
    message: e.title,
    code: e.code,
    ...(e.status === null ? {} : { status: e.status }),
    ...(e.requestId === null ? {} : { requestId: e.requestId }),
  };
}

function resultEvent(r: ItemResult): { level: Level; msg: string; fields: Record<string, unknown> } {
  const { error, ...fields } = r;
  const id = String(r.id);
  if (r.ok) {
    const how = r.replayed === true ? 'already filed' : 'filed';
    const from = r.from === 'journal' ? ', from the journal' : '';
    return { level: 'info', msg: `${id} ${how} as ${String(r.externalId)} (syncCount ${String(r.syncCount)}${from})`, fields };
  }
  const stage = typeof r.stage === 'string' ? ` at the ${r.stage} stage` : '';
  const message = error?.title ?? 'failed';
  return {
    level: 'warn',
    msg: `${id} failed${stage}: ${message}`,
    fields: { ...fields, error: error ? itemErrorObject(error) : { message } },
  };
}

export function createEventLog(log: JsonLog): EventLog {
  const onWait = (message: unknown): void => {
    const w = message as WaitMessage;
    log.emit('info', 'wait', `waiting ${(w.ms / 1000).toFixed(1)} s: ${w.reason}`, {
      ms: w.ms,
      reason: w.reason,
      attempt: w.attempt,
      kind: w.kind,
    });
  };
  subscribe(WAIT_CHANNEL, onWait);
  return {
    emit: log.emit,
    journalOpened: () => undefined,
    passStarted: (pass) => log.emit('info', 'pass-start', `pass ${pass} started`, { pass }),
    passEnded: (pass, end) => {
      const { error, ...counts } = end;
      const took = `${(end.durationMs / 1000).toFixed(1)} s`;
      if (error !== undefined) {
        log.emit('error', 'pass-end', `pass ${pass} failed after ${took}: ${error}`, { pass, ...counts, error: { message: error } });
        return;
      }
      const how = end.interrupted ? `was ${end.interruptedBy ?? 'interrupted'}` : 'ended';
      const during = end.interruptedDuring === undefined ? '' : ` while ${end.interruptedDuring}`;
      const pending = end.journal === undefined ? '' : `; the journal ${end.journal} holds what is pending`;
      const msg = `pass ${pass} ${how} after ${took}${during}: ${end.filed} filed, ${end.failed} failed, ${end.waiting} waiting, ${end.parked} parked${pending}`;
      log.emit('info', 'pass-end', msg, { pass, ...counts });
    },
    listed: () => undefined,
    commandStarted: () => () => undefined,
    result: (r) => {
      const e = resultEvent(r);
      log.emit(e.level, 'result', e.msg, e.fields);
    },
    parked: (id, failures) =>
      log.emit('warn', 'parked', `${id} is parked after ${failures} failures of its command: rfs sync --retry-parked runs it again`, {
        id,
        failures,
      }),
    close: async () => {
      unsubscribe(WAIT_CHANNEL, onWait);
    },
  };
}
