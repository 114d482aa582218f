// The one place where an error becomes what the user reads on stderr (cli.md, Exit codes):
// `error: <title> (<code>, HTTP <status>, request <requestId>)`, a line of advice where it
// helps, the problem-details JSON with -o json/ndjson, and a stack trace only with --verbose.
import type { FailureReport, GlobalOptions } from '../commands/context.js';
import { ApiError, CancelError, ContractError, RfsError, exitCodeFor } from '../core/errors.js';
import { interruptionText, type StopSignal } from '../core/interrupt.js';
import type { IO } from '../core/io.js';
import { safeJson } from '../output/safe-json.js';
import { mapStrings, redactSecrets } from '../core/redact.js';
import { sanitize } from '../core/sanitize.js';

const SCOPE_OF: Record<string, string> = {
  recordings: 'read:recordings',
  file: 'write:recordings',
  sync: 'read:recordings and write:recordings',
  webhooks: 'manage:webhooks',
  deliveries: 'manage:webhooks',
};

function adviceFor(error: ApiError, command: string): string | undefined {
  switch (error.code) {
    case 'UNAUTHORIZED':
      return 'the key was refused (missing, invalid or revoked): check it with `rfs auth status` or save a new one with `rfs auth login`';
    case 'INSUFFICIENT_SCOPE': {
      const scope = SCOPE_OF[command.split(' ')[0] ?? ''];
      return scope ? `this command needs a key with the ${scope} scope` : 'the key lacks the scope this endpoint needs';
    }
    case 'SUBSCRIPTION_REQUIRED':
      return 'the workspace needs an active Pro or Enterprise plan with beta access enabled';
    case 'INVALID_CURSOR':
      return 'the cursor is invalid, expired, or from another query: start again without --cursor';
    case 'RESOURCE_NOT_FOUND':
      return "check the id: only the key's own workspace is searched";
    case 'RECORDING_NOT_COMPLETED':
      return 'only COMPLETED recordings can be filed';
    case 'WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED':
      return 'a workspace holds at most 50 subscriptions: remove one with `rfs webhooks delete <id>`';
    case 'RATE_LIMIT_EXCEEDED':
      return 'still rate limited after the retries: lower --rate, or raise --max-retries';
    default:
      if (error.status > 599)
        return `HTTP ${error.status} is not a status HTTP defines: check that --base-url points at the Recording Filing Service`;
      return error.status >= 500 ? 'the service failed; try again later, and quote the request id if it persists' : undefined;
  }
}

function problemObject(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) {
    return error.body ?? { title: error.title, status: error.status, code: error.code, requestId: error.requestId };
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof RfsError ? error.name.replace(/Error$/, '').toUpperCase() || 'ERROR' : 'INTERNAL_BUG';
  const out: Record<string, unknown> = { title: message, code, exitCode: exitCodeFor(error) };
  if (error instanceof ContractError && error.path !== undefined) out.path = error.path;
  return out;
}

export interface ReportContext {
  globals: GlobalOptions | undefined;
  name: string;
  /** The run's redaction (with its key when one is known); default: the patterns alone. */
  redact?: (text: string) => string;
  /** The signal that stopped the run, named in the report of a CancelError; none: Ctrl-C's words. */
  stoppedBy?: StopSignal | undefined;
}

/**
 * What the report says of an error, in parts, each redacted: its first line (`error: …`, or the
 * interruption's words), the line of advice where one helps, the cursor to resume from, the exit
 * code and the problem-details object. `reportError` prints them; `rfs mcp` answers them as fields.
 */
export function describeError(error: unknown, context: ReportContext): FailureReport {
  // The error redacted its own text when it was built, but an error that is not ours (a bug's
  // message) did not: every part passes the run's redaction.
  const redact = context.redact ?? ((text: string): string => redactSecrets(text));
  let line: string;
  let advice: string | undefined;
  if (error instanceof ApiError) {
    line = `error: ${sanitize(error.title)} (${sanitize(error.code)}, HTTP ${error.status}, request ${sanitize(error.requestId ?? 'none')})`;
    advice = error.hint ?? adviceFor(error, context.name);
  } else if (error instanceof CancelError) {
    line = `${interruptionText(context.stoppedBy)}: ${error.stopped}`;
  } else if (error instanceof RfsError) {
    line = `error: ${sanitize(error.message)}`;
    if (error.hint) advice = sanitize(error.hint);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    line = `error: unexpected failure: ${sanitize(message)}`;
    advice = 'this is a bug in rfs; run again with --verbose for the stack trace and report it';
  }
  const resume = error instanceof RfsError ? error.resumeCursor : undefined;
  return {
    line: redact(line),
    ...(advice ? { advice: redact(advice) } : {}),
    ...(resume ? { resumeCursor: redact(sanitize(resume)) } : {}),
    exitCode: exitCodeFor(error),
    problem: mapStrings(problemObject(error), redact) as Record<string, unknown>,
  };
}

export function reportError(io: IO, error: unknown, context: ReportContext): void {
  const report = describeError(error, context);
  const lines = [report.line];
  if (report.advice) lines.push(report.advice);
  if (report.resumeCursor) lines.push(`resume with: --cursor ${report.resumeCursor}`);
  const format = context.globals?.output;
  if (format === 'json' || format === 'ndjson') lines.push(safeJson(problemObject(error)));
  if (context.globals?.verbose && error instanceof Error && error.stack) lines.push(sanitize(error.stack, { multiline: true }));
  // Last, over everything, text and problem JSON alike (see describeError).
  const redact = context.redact ?? ((text: string): string => redactSecrets(text));
  io.stderr.write(`${redact(lines.join('\n'))}\n`);
}
