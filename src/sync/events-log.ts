// `rfs sync --log-format json` (cli.md, sync): one JSON object per line on stderr for each event
// (a pass starting and ending, each result, each wait, warnings and errors), for a log shipper
// rather than a person. Every line passes the run's redaction, as every other writer does.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { WAIT_CHANNEL } from '../api/client.js';
import type { Clock } from '../core/clock.js';
import type { IO } from '../core/io.js';
import type { Spinner, Ui } from '../core/ui.js';
import { safeJson } from '../output/safe-json.js';
import type { SyncObserver } from './observer.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

export interface EventLog extends SyncObserver {
  /** One event line: `{"time", "level", "event", ...fields}`. */
  emit(level: Level, event: string, fields?: Record<string, unknown>): void;
}

export function createEventLog(io: IO, ui: Ui, clock: Clock): EventLog {
  const emit = (level: Level, event: string, fields: Record<string, unknown> = {}): void => {
    const line = safeJson({ time: new Date(clock.now()).toISOString(), level, event, ...fields });
    io.stderr.write(`${ui.redact(line)}\n`);
  };
  const onWait = (message: unknown): void => {
    const w = message as { ms: number; reason: string; attempt: number };
    emit('info', 'wait', { ms: w.ms, reason: w.reason, attempt: w.attempt });
  };
  subscribe(WAIT_CHANNEL, onWait);
  return {
    emit,
    passStarted: (pass) => emit('info', 'pass-start', { pass }),
    passEnded: (pass, end) => {
      const { error, ...counts } = end;
      emit(error === undefined ? 'info' : 'error', 'pass-end', { pass, ...counts, ...(error === undefined ? {} : { error }) });
    },
    journalOpened: () => undefined,
    listed: () => undefined,
    commandStarted: () => () => undefined,
    result: (r) => emit(r.ok ? 'info' : 'warn', 'result', r),
    parked: (id, failures) => emit('warn', 'parked', { id, failures, hint: 'run rfs sync with --retry-parked to try it again' }),
    close: async () => {
      unsubscribe(WAIT_CHANNEL, onWait);
    },
  };
}

const QUIET_SPINNER = (log: EventLog): Spinner => ({
  update: () => undefined,
  stop: (finalText) => {
    if (finalText !== undefined) log.emit('info', 'notice', { message: finalText });
  },
});

/**
 * Makes the run's Ui speak JSON events. It is changed in place, not wrapped: the API client of
 * this run holds the same Ui for its wait notices, and they must not come out as text either.
 */
export function speakJson(ui: Ui, log: EventLog): void {
  const json: Pick<Ui, 'notice' | 'warn' | 'verbose' | 'spinner'> = {
    notice: (message) => {
      if (!ui.quiet) log.emit('info', 'notice', { message });
    },
    warn: (message) => log.emit('warn', 'warning', { message }),
    verbose: (message) => {
      if (ui.verboseEnabled) log.emit('debug', 'verbose', { message });
    },
    spinner: async () => QUIET_SPINNER(log),
  };
  Object.assign(ui, json);
}
