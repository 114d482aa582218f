// One row per check of rfs doctor (cli.md, doctor), and the exit code they add up to.
import { EXIT, RfsError, exitCodeFor } from '../../core/errors.js';
import { sanitize } from '../../core/sanitize.js';

export type CheckResult = 'ok' | 'warn' | 'fail' | 'skipped';

export interface CheckRow {
  check: string;
  result: CheckResult;
  detail: string;
  /** For a failure: the exit code of its class (2 local setup, 3 key, 6 network, 7 broken answer). */
  exit?: number;
  /** What the check found, as fields for -o json (the detail says it in words). */
  found?: Record<string, unknown>;
}

export class Report {
  readonly rows: CheckRow[] = [];

  ok(check: string, detail: string, found?: Record<string, unknown>): void {
    this.rows.push({ check, result: 'ok', detail, ...(found === undefined ? {} : { found }) });
  }

  warn(check: string, detail: string, found?: Record<string, unknown>): void {
    this.rows.push({ check, result: 'warn', detail, ...(found === undefined ? {} : { found }) });
  }

  skip(check: string, detail: string): void {
    this.rows.push({ check, result: 'skipped', detail });
  }

  fail(check: string, detail: string, exit: number): void {
    this.rows.push({ check, result: 'fail', detail, exit });
  }

  /** A failure described by the error it threw, with that error's exit code; a file that cannot be read is local setup (2). */
  failWith(check: string, error: unknown, prefix = ''): void {
    const message = error instanceof Error ? error.message : String(error);
    this.fail(check, `${prefix}${sanitize(message)}`, error instanceof RfsError ? exitCodeFor(error) : EXIT.USAGE);
  }

  /** 0 when nothing failed; else the first failure's code. */
  exitCode(): number {
    return this.rows.find((r) => r.result === 'fail')?.exit ?? EXIT.OK;
  }
}
