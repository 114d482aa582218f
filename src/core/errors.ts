// The error hierarchy of rfs and the one place where an error becomes an exit code
// (cli.md, Exit codes). Nothing here stores a secret: messages are built from redacted values.

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

export class RfsError extends Error {
  readonly exitCode: ExitCode = EXIT.BUG;
  /** One optional line of advice printed after the error line. */
  hint?: string;
  /** For an `--all` that stopped: the cursor of the first page it did not get. */
  resumeCursor?: string;
  constructor(message: string, options?: { cause?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.hint !== undefined) this.hint = options.hint;
    this.name = new.target.name;
  }
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
  constructor(problem: ProblemInfo, options?: { cause?: unknown; hint?: string }) {
    super(problem.title, options);
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.requestId = problem.requestId;
    this.type = problem.type;
    this.body = problem.body;
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
  constructor(message: string, options?: { cause?: unknown; hint?: string; path?: string }) {
    super(message, options);
    this.path = options?.path;
  }
}

/** Ctrl-C or another cancellation (exit 130). */
export class CancelError extends RfsError {
  override readonly exitCode = EXIT.INTERRUPTED;
}

/** A batch finished and some of its items failed; the items were reported already (exit 8). */
export class BatchError extends RfsError {
  override readonly exitCode = EXIT.BATCH_FAILED;
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
