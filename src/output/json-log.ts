// The one schema of `--log-format json` (cli.md, sync): one JSON object per stderr line,
// `{time, level, msg, event, ...fields}`, each field with one JSON type across all events, and
// `error` always an object `{message, code?, status?, requestId?}`, so that a log shipper
// (Vector, Fluent Bit, Promtail, pino-pretty) reads it with its JSON defaults and an index
// (Elasticsearch, OpenSearch) never meets a field that changes type. `msg` is the key pino,
// Bunyan and slog use. Every line passes the run's redaction, as every other writer does.
import type { Clock } from '../core/clock.js';
import { ApiError, RfsError } from '../core/errors.js';
import type { Spinner, Ui } from '../core/ui.js';
import { safeJson } from './safe-json.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';

/** The `error` field of every event that has one. */
export interface LogError {
  message: string;
  code?: string;
  status?: number;
  requestId?: string;
}

export interface JsonLog {
  /** One line: `msg` is a sentence for a person, `fields` what a query needs. */
  emit(level: Level, event: string, msg: string, fields?: Record<string, unknown>): void;
}

export function createJsonLog(write: (line: string) => void, redact: (text: string) => string, clock: Pick<Clock, 'now'>): JsonLog {
  return {
    emit(level, event, msg, fields = {}) {
      // The four keys lead every line (as a reader of the raw log expects) and no field replaces them.
      const rest = Object.entries(fields).filter(([key]) => !HEAD.has(key));
      const line = safeJson({ time: new Date(clock.now()).toISOString(), level, msg, event, ...Object.fromEntries(rest) });
      write(`${redact(line)}\n`);
    },
  };
}

const HEAD = new Set(['time', 'level', 'msg', 'event']);

/** Any error as the log's `error` object. */
export function errorObject(error: unknown): LogError {
  if (error instanceof ApiError) {
    return { message: error.title, code: error.code, status: error.status, ...(error.requestId ? { requestId: error.requestId } : {}) };
  }
  if (error instanceof RfsError) return { message: error.message, code: error.name.replace(/Error$/, '').toUpperCase() };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** An error's sentence for `msg`: the message, and its advice when it has one. */
export function errorSentence(error: unknown): string {
  const message = error instanceof ApiError ? `${error.title} (${error.code}, HTTP ${error.status})` : errorObject(error).message;
  const hint = error instanceof RfsError ? error.hint : undefined;
  return hint ? `error: ${message}; ${hint}` : `error: ${message}`;
}

const quietSpinner = (log: JsonLog): Spinner => ({
  update: () => undefined,
  stop: (finalText) => {
    if (finalText !== undefined) log.emit('info', 'notice', finalText);
  },
});

/**
 * Makes a Ui speak JSON events. It is changed in place, not wrapped: the API client of the run
 * holds the same Ui for its wait notices and verbose lines, and they must not come out as text.
 */
export function speakJson(ui: Ui, log: JsonLog): void {
  const json: Pick<Ui, 'notice' | 'say' | 'warn' | 'verbose' | 'spinner'> = {
    notice: (message) => {
      if (!ui.quiet) log.emit('info', 'notice', message);
    },
    say: (message, shown) => log.emit('info', 'notice', shown?.shownOnce === undefined ? message : `${message} ${shown.shownOnce}`),
    warn: (message) => log.emit('warn', 'warning', message),
    verbose: (message) => {
      if (ui.verboseEnabled) log.emit('debug', 'verbose', message);
    },
    spinner: async () => quietSpinner(log),
  };
  Object.assign(ui, json);
}

/**
 * Whether a command line asks for JSON logs: `--log-format json` or `--log-format=json`. Read
 * from the words themselves, so that a usage error that commander finds before it has parsed
 * anything (an unknown flag) is a JSON line too.
 */
export function asksJsonLog(argv: readonly string[]): boolean {
  return argv.some((word, i) => word === '--log-format=json' || (word === '--log-format' && argv[i + 1] === 'json'));
}
