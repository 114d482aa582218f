// `rfs verify-signature`: checks a webhook signature against the raw body with the one
// implementation in src/shared/signature.ts (the sandbox signs with the same module). Exit 0
// when valid, 1 when not (cli.md), 2 for bad flags or unreadable local input.
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import type { Context } from '../cli/context.js';
import { CancelError, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/program.js';
import { safeJson } from '../output/safe-json.js';
import { DEFAULT_TOLERANCE_SECONDS, type SignatureCheck, verifySignature } from '../shared/signature.js';
import { signatureHeadersFromDump, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../webhooks/header-dump.js';
import { readWebhookSecret } from '../webhooks/secret.js';
import { intFlag, stringFlag } from './flags.js';

export interface VerifyOptions {
  timestamp: string | undefined;
  signature: string | undefined;
  /** A header dump to read both values from instead; `-` for stdin. */
  headers: string | undefined;
  /** A file, or `-` for stdin. */
  payload: string;
  secretEnv: string | undefined;
  secretFile: string | undefined;
  toleranceSeconds: number;
  /** Unix seconds to check against; undefined for the clock. */
  nowSeconds: number | undefined;
}

// cli.md, Exit codes: for verify-signature, 1 means "the signature is not valid", not a bug.
const EXIT_INVALID = 1;

// Ten digits, as the timestamps themselves (signature.ts): a millisecond value is refused here too.
const MAX_UNIX_SECONDS = 9_999_999_999;

export function verifyOptions(opts: Record<string, unknown>): VerifyOptions {
  const headers = stringFlag(opts.headers);
  const timestamp = stringFlag(opts.timestamp);
  const signature = stringFlag(opts.signature);
  if (headers !== undefined && (timestamp !== undefined || signature !== undefined)) {
    const flag = timestamp !== undefined ? '--timestamp' : '--signature';
    throw new UsageError(`--headers and ${flag} cannot be used together: the header dump gives both values`);
  }
  const payload = stringFlag(opts.payload) ?? '-';
  if (headers === '-' && payload === '-') {
    throw new UsageError('--headers - and the payload cannot both come from stdin: give --payload <file>');
  }
  return {
    timestamp,
    signature,
    headers,
    payload,
    secretEnv: stringFlag(opts.secretEnv),
    secretFile: stringFlag(opts.secretFile),
    toleranceSeconds: intFlag('--tolerance', opts.tolerance ?? String(DEFAULT_TOLERANCE_SECONDS), { min: 0, max: MAX_UNIX_SECONDS }) ?? DEFAULT_TOLERANCE_SECONDS,
    nowSeconds: intFlag('--now', opts.now, { min: 0, max: MAX_UNIX_SECONDS }),
  };
}

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

async function readStream(stream: Readable, signal: AbortSignal): Promise<Buffer> {
  if (signal.aborted) throw new CancelError('interrupted');
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new CancelError('interrupted while reading stdin'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const collect = (async () => {
    const chunks: Buffer[] = [];
    // Buffers as they come: decoding and re-encoding would change bytes that are not UTF-8.
    for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
    return Buffer.concat(chunks);
  })();
  // After Ctrl-C the read is abandoned; a later stream error must not become an unhandled rejection.
  collect.catch(() => undefined);
  try {
    return await Promise.race([collect, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

async function readInput(ctx: Context, source: string, flag: string): Promise<Buffer> {
  if (source === '-') {
    if (ctx.io.stdinIsTTY) ctx.ui.notice(`reading ${flag === '--payload' ? 'the payload' : 'the header dump'} from stdin; end it with Ctrl-D`);
    return readStream(ctx.io.stdin, ctx.signal);
  }
  try {
    return await readFile(source);
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${JSON.stringify(source)} (${errnoCode(error)})`, { cause: error });
  }
}

/** The values as given, the header dump's when --headers is used. */
async function signatureValues(ctx: Context, o: VerifyOptions): Promise<{ timestamp: string | undefined; signature: string | undefined }> {
  if (o.headers === undefined) return { timestamp: o.timestamp, signature: o.signature };
  const dump = await readInput(ctx, o.headers, '--headers');
  return signatureHeadersFromDump(dump.toString('utf8'));
}

export interface Verdict extends SignatureCheck {
  /** Why, in a sentence; never containing the expected signature. */
  explanation: string;
}

function seconds(n: number): string {
  return `${n} second${n === 1 ? '' : 's'}`;
}

/**
 * The check of signature.ts, plus one case it cannot see: a value given but empty
 * (`--timestamp "$TS"` with TS unset) was supplied, so it is malformed rather than missing.
 */
export function verdict(input: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: Uint8Array;
  toleranceSeconds: number;
  nowSeconds: number;
  /** Where the values came from, for the explanation. */
  fromHeaders: boolean;
}): Verdict {
  const { timestamp, signature, toleranceSeconds } = input;
  const tsName = input.fromHeaders ? `the ${TIMESTAMP_HEADER} header` : '--timestamp';
  const sigName = input.fromHeaders ? `the ${SIGNATURE_HEADER} header` : '--signature';
  if (timestamp === undefined || signature === undefined) {
    const absent = [timestamp === undefined ? 'timestamp' : undefined, signature === undefined ? 'signature' : undefined].filter(
      (w): w is string => w !== undefined,
    );
    const explanation = input.fromHeaders
      ? `the header dump has no ${absent.map((w) => `x-service-${w}`).join(' or ')} header`
      : absent.length === 2
        ? 'neither --timestamp nor --signature was given (or use --headers <file>)'
        : `no --${absent[0] ?? ''} was given`;
    return { valid: false, reason: 'missing', ageSeconds: null, explanation };
  }
  const timestampHelp = `${tsName} must be whole Unix seconds, such as 1700000000 (not milliseconds, not a decimal)`;
  const signatureHelp = `${sigName} must be sha256= followed by 64 hex digits`;
  if (timestamp.trim() === '') return { valid: false, reason: 'malformed', ageSeconds: null, explanation: timestampHelp };
  if (signature.trim() === '') return { valid: false, reason: 'malformed', ageSeconds: null, explanation: signatureHelp };
  const check = verifySignature({ ...input, timestamp, signature });
  switch (check.reason) {
    case null:
      return { ...check, explanation: 'the signature matches the payload and the timestamp is within the tolerance' };
    case 'missing':
      return { ...check, explanation: `${tsName} or ${sigName} is empty` };
    case 'malformed':
      // signature.ts reads the timestamp first: no age means the timestamp was unreadable.
      return { ...check, explanation: check.ageSeconds === null ? timestampHelp : signatureHelp };
    case 'stale': {
      const age = check.ageSeconds ?? 0;
      const when = age >= 0 ? `${seconds(age)} old` : `${seconds(-age)} in the future`;
      return { ...check, explanation: `the timestamp is ${when}; the tolerance is ${seconds(toleranceSeconds)} either way` };
    }
    case 'mismatch':
      return {
        ...check,
        explanation: 'the signature does not match this payload, timestamp and secret (a re-serialised body or another subscription\'s secret?)',
      };
  }
}

export async function run(ctx: Context, invocation: Invocation): Promise<number> {
  const o = verifyOptions(invocation.opts);
  // The secret first: without it nothing else is worth reading (and stdin stays unread).
  const secret = await readWebhookSecret({ secretEnv: o.secretEnv, secretFile: o.secretFile }, { env: ctx.io.env });
  const values = await signatureValues(ctx, o);
  const missing = values.timestamp === undefined || values.signature === undefined;
  // Without both values the answer is `missing` whatever the body: stdin is not waited for then,
  // but a --payload file is still read, so that a wrong path is reported as such.
  const body = missing && o.payload === '-' ? Buffer.alloc(0) : await readInput(ctx, o.payload, '--payload');
  const result = verdict({
    secret,
    ...values,
    body,
    toleranceSeconds: o.toleranceSeconds,
    nowSeconds: o.nowSeconds ?? Math.floor(ctx.io.now() / 1000),
    fromHeaders: o.headers !== undefined,
  });

  const json = { valid: result.valid, reason: result.reason, ageSeconds: result.ageSeconds };
  const format = ctx.globals.output;
  if (format === 'json') ctx.io.stdout.write(`${safeJson(json, 2)}\n`);
  else if (format === 'ndjson') ctx.io.stdout.write(`${safeJson(json)}\n`);
  else {
    const chalk = new Chalk({ level: ctx.ui.stdoutColor ? 1 : 0 });
    ctx.io.stdout.write(
      result.valid ? `${chalk.green('valid')}\n` : `${chalk.red(`invalid: ${result.reason ?? 'unknown'}`)}\n  ${result.explanation}\n`,
    );
  }
  return result.valid ? 0 : EXIT_INVALID;
}
