// The one place where an error becomes what the user reads on stderr (cli.md, Exit codes):
// `error: <title> (<code>, HTTP <status>, request <requestId>)`, a line of advice where it
// helps, the problem-details JSON with -o json/ndjson, and a stack trace only with --verbose.
import type { GlobalOptions } from '../commands/context.js';
import { ApiError, CancelError, ContractError, RfsError, exitCodeFor } from '../core/errors.js';
import { interruptionText, type StopSignal } from '../core/interrupt.js';
import type { IO } from '../core/io.js';
import { safeJson } from '../output/safe-json.js';
import { redactSecrets } from '../core/redact.js';
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

export function reportError(io: IO, error: unknown, context: ReportContext): void {
  const lines: string[] = [];
  if (error instanceof ApiError) {
    lines.push(
      `error: ${sanitize(error.title)} (${sanitize(error.code)}, HTTP ${error.status}, request ${sanitize(error.requestId ?? 'none')})`,
    );
    const advice = error.hint ?? adviceFor(error, context.name);
    if (advice) lines.push(advice);
  } else if (error instanceof CancelError) {
    lines.push(`${interruptionText(context.stoppedBy)}: stopped before finishing`);
  } else if (error instanceof RfsError) {
    lines.push(`error: ${sanitize(error.message)}`);
    if (error.hint) lines.push(sanitize(error.hint));
  } else {
    const message = error instanceof Error ? error.message : String(error);
    lines.push(`error: unexpected failure: ${sanitize(message)}`);
    lines.push('this is a bug in rfs; run again with --verbose for the stack trace and report it');
  }
  const resume = error instanceof RfsError ? error.resumeCursor : undefined;
  if (resume) lines.push(`resume with: --cursor ${sanitize(resume)}`);
  const format = context.globals?.output;
  if (format === 'json' || format === 'ndjson') lines.push(safeJson(problemObject(error)));
  if (context.globals?.verbose && error instanceof Error && error.stack) lines.push(sanitize(error.stack, { multiline: true }));
  // Last, over everything, text and problem JSON alike: the error redacted its own text when it
  // was built, but an error that is not ours (a bug's message) did not.
  const redact = context.redact ?? ((text: string): string => redactSecrets(text));
  io.stderr.write(`${redact(lines.join('\n'))}\n`);
}
