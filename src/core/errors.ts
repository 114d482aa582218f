// The error hierarchy of rfs and the one place where an error becomes an exit code
// (cli.md, Exit codes). No error holds a secret: every text an error keeps (message, hint,
// problem fields and body, path, a cause's message) is redacted when the error is built, as
// Octokit's RequestError does for the authorization header, so that whoever prints it later (a
// warning, a result line, the report, a stack trace) cannot leak one.
import { redactSecrets, redactValue } from './redact.js';

export const EXIT = {
  OK: 0,
  BUG: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  TRANSIENT: 6,
  CONTRACT: 7,
  BATCH_FAILED: 8,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface ErrorOptions {
  cause?: unknown;
  hint?: string | undefined;
  /**
   * The API key the code that builds the error knows (the client's): removed from every text
   * whatever its shape, not only where it looks like a key. Used at construction, never kept.
   */
  apiKey?: string | undefined;
}

export class RfsError extends Error {
  readonly exitCode: ExitCode = EXIT.BUG;
  #hint: string | undefined;
  /** For an `--all` that stopped: the cursor of the first page it did not get. */
  resumeCursor?: string;
  constructor(message: string, options?: ErrorOptions) {
    // Before super(): the stack trace that -v prints is captured with the message in it.
    super(
      redactSecrets(message, options?.apiKey),
      options?.cause === undefined ? undefined : { cause: redactCause(options.cause, options.apiKey) },
    );
    if (options?.hint !== undefined) this.#hint = redactSecrets(options.hint, options.apiKey);
    this.name = new.target.name;
  }

  /** One optional line of advice printed after the error line; redacted when set, too. */
  get hint(): string | undefined {
    return this.#hint;
  }
  set hint(text: string | undefined) {
    this.#hint = text === undefined ? undefined : redactSecrets(text);
  }
}

/**
 * A cause is kept for its code and type (the retry policy reads them); its text is redacted in
 * place, since a library's message can quote what the server sent. Our own errors are clean.
 */
function redactCause(cause: unknown, apiKey: string | undefined): unknown {
  if (!(cause instanceof Error) || cause instanceof RfsError) return cause;
  const message = redactSecrets(cause.message, apiKey);
  const stack = cause.stack === undefined ? undefined : redactSecrets(cause.stack, apiKey);
  try {
    if (message !== cause.message) cause.message = message;
    if (stack !== cause.stack) cause.stack = stack;
  } catch {
    // A frozen error keeps its text; it is never printed (only our own errors are).
  }
  return cause;
}

/** Bad flags, arguments or local input: nothing was sent (exit 2). */
export class UsageError extends RfsError {
  override readonly exitCode = EXIT.USAGE;
}

/** No key configured, or a key refused locally before sending (exit 3). */
export class AuthError extends RfsError {
  override readonly exitCode = EXIT.AUTH;
}

export interface ProblemInfo {
  status: number;
  code: string;
  title: string;
  requestId: string | null;
  type?: string;
  /** The problem-details object as the server sent it (sanitised before printing). */
  body?: Record<string, unknown>;
}

/** The server answered with an error status (problem details, or an unreadable body). */
export class ApiError extends RfsError {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly requestId: string | null;
  readonly type: string | undefined;
  readonly body: Record<string, unknown> | undefined;
  override readonly exitCode: ExitCode;
  constructor(problem: ProblemInfo, options?: ErrorOptions) {
    super(problem.title, options);
    const redact = (text: string): string => redactSecrets(text, options?.apiKey);
    this.status = problem.status;
    this.code = redact(problem.code);
    this.title = this.message;
    this.requestId = problem.requestId === null ? null : redact(problem.requestId);
    this.type = problem.type === undefined ? undefined : redact(problem.type);
    this.body = problem.body === undefined ? undefined : (redactValue(problem.body, options?.apiKey) as Record<string, unknown>);
    this.exitCode = exitCodeForStatus(problem.status);
  }
}

/** Connection failures and timeouts that outlasted the retries (exit 6). */
export class NetworkError extends RfsError {
  override readonly exitCode = EXIT.TRANSIENT;
}

/** The server's answer broke the contract: not JSON, or not the documented shape (exit 7). */
export class ContractError extends RfsError {
  override readonly exitCode = EXIT.CONTRACT;
  /** Where in the body the answer went wrong, e.g. `data[3].status`. */
  readonly path: string | undefined;
  constructor(message: string, options?: ErrorOptions & { path?: string }) {
    super(message, options);
    this.path = options?.path === undefined ? undefined : redactSecrets(options.path, options.apiKey);
  }
}

/** Ctrl-C or another cancellation (exit 130). */
/** What a stop means for most runs: they had more to do. */
const STOPPED_BEFORE_FINISHING = 'stopped before finishing';

export class CancelError extends RfsError {
  override readonly exitCode = EXIT.INTERRUPTED;
  /**
   * What the stop meant for the run, said after the interruption's words ("interrupted
   * (Ctrl-C): stopped before finishing"); a command that runs until it is stopped (watch) has
   * nothing it did not finish, and says what it is instead ("watch stopped").
   */
  readonly stopped: string;
  constructor(message: string, options?: ErrorOptions & { stopped?: string | undefined }) {
    super(message, options);
    this.stopped = options?.stopped ?? STOPPED_BEFORE_FINISHING;
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 400 || status === 415 || status === 413 || status === 422) return EXIT.USAGE;
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 409) return EXIT.CONFLICT;
  if (status === 408 || status === 429 || (status >= 500 && status <= 599)) return EXIT.TRANSIENT;
  // Any other status is not in the contract's table at all.
  return EXIT.CONTRACT;
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof RfsError) return error.exitCode;
  return EXIT.BUG;
}
