// `rfs verify-signature`: checks a webhook signature against the raw body with the one
// implementation in src/shared/signature.ts (the sandbox signs with the same module). Exit 0
// when valid, 1 when not (cli.md), 2 for bad flags or unreadable local input.
import { Chalk } from 'chalk';
import type { Context } from '../context.js';
import { boundedChunks, readBounded } from '../../core/bounded-read.js';
import { RfsError, UsageError } from '../../core/errors.js';
import { safeJson } from '../../output/safe-json.js';
import { MAX_DELIVERY_BYTES } from '../../shared/delivery.js';
import { signatureHeadersFromDump } from '../../webhooks/header-dump.js';
import { readWebhookSecret } from '../../webhooks/secret.js';
import { MAX_UNIX_SECONDS, verdictOfStream } from '../../webhooks/verify.js';
import { numberFlag } from '../../core/flags.js';
import type { Input } from './index.js';

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

export function options({ flags }: Input): VerifyOptions {
  const { headers, timestamp, signature, payload } = flags;
  if (headers !== undefined && (timestamp !== undefined || signature !== undefined)) {
    const flag = timestamp !== undefined ? '--timestamp' : '--signature';
    throw new UsageError(`--headers and ${flag} cannot be used together: the header dump gives both values`);
  }
  if (headers === '-' && payload === '-') {
    throw new UsageError('--headers - and the payload cannot both come from stdin: give --payload <file>');
  }
  return {
    timestamp,
    signature,
    headers,
    payload,
    secretEnv: flags.secretEnv,
    secretFile: flags.secretFile,
    toleranceSeconds: numberFlag('--tolerance', flags.tolerance, { min: 0, max: MAX_UNIX_SECONDS, integer: true }),
    nowSeconds: numberFlag('--now', flags.now, { min: 0, max: MAX_UNIX_SECONDS, integer: true }),
  };
}

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

// A header dump holds a few messages' headers (Node caps one at 16 KiB; `curl -L -D` writes one per
// redirect): anything larger is refused unread, /dev/zero or a body given by mistake.
const MAX_HEADER_DUMP_BYTES = 64 * 1024;

function stdinNotice(ctx: Context, flag: string): void {
  if (ctx.io.stdinIsTTY)
    ctx.ui.notice(`reading ${flag === '--payload' ? 'the payload' : 'the header dump'} from stdin; end it with Ctrl-D`);
}

function unreadable(source: string, flag: string, error: unknown): unknown {
  if (error instanceof RfsError) return error;
  return new UsageError(`cannot read ${flag} ${JSON.stringify(source)} (${errnoCode(error)})`, { cause: error });
}

/** The payload's bytes as they arrive, never held whole: its HMAC is computed as it streams. */
async function* payloadChunks(ctx: Context, source: string): AsyncGenerator<Buffer> {
  if (source === '-') stdinNotice(ctx, '--payload');
  try {
    // A delivery's body is at most 1 MiB, as `webhooks sign --payload` and the receivers take:
    // /dev/zero or a wrong file stops there with exit 2 instead of running until interrupted.
    yield* boundedChunks(source === '-' ? ctx.io.stdin : source, {
      limit: MAX_DELIVERY_BYTES,
      what: source === '-' ? 'the payload on stdin' : 'the --payload file',
      kind: 'a delivery payload',
      signal: ctx.signal,
    });
  } catch (error) {
    throw unreadable(source, '--payload', error);
  }
}

/** The values as given, the header dump's when --headers is used. */
async function signatureValues(ctx: Context, o: VerifyOptions): Promise<{ timestamp: string | undefined; signature: string | undefined }> {
  if (o.headers === undefined) return { timestamp: o.timestamp, signature: o.signature };
  if (o.headers === '-') stdinNotice(ctx, '--headers');
  let dump: Buffer;
  try {
    dump = await readBounded(o.headers === '-' ? ctx.io.stdin : o.headers, {
      limit: MAX_HEADER_DUMP_BYTES,
      what: o.headers === '-' ? 'the header dump on stdin' : 'the file given to --headers',
      kind: 'a header dump',
      signal: ctx.signal,
    });
  } catch (error) {
    throw unreadable(o.headers, '--headers', error);
  }
  return signatureHeadersFromDump(dump.toString('utf8'));
}

export async function run(ctx: Context, o: VerifyOptions): Promise<number> {
  // The secret first: without it nothing else is worth reading (and stdin stays unread).
  const secret = await readWebhookSecret(
    { secretEnv: o.secretEnv, secretFile: o.secretFile },
    { env: ctx.io.env, onSecret: ctx.knowSecret },
  );
  const values = await signatureValues(ctx, o);
  const missing = values.timestamp === undefined || values.signature === undefined;
  // Without both values the answer is `missing` whatever the body: stdin is not waited for then,
  // but a --payload file is still read, so that a wrong path is reported as such. The payload is
  // never held whole: a 1 GB body must not take 1 GB.
  const body = missing && o.payload === '-' ? [] : payloadChunks(ctx, o.payload);
  const result = await verdictOfStream({
    secret,
    ...values,
    body,
    toleranceSeconds: o.toleranceSeconds,
    nowSeconds: o.nowSeconds ?? Math.floor(ctx.clock.now() / 1000),
    source: o.headers !== undefined ? 'header-dump' : 'flags',
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
