// `rfs verify-signature`: checks a webhook signature against the raw body with the one
// implementation in src/shared/signature.ts (the sandbox signs with the same module). Exit 0
// when valid, 1 when not (cli.md), 2 for bad flags or unreadable local input.
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import type { Context } from '../context.js';
import { CancelError, UsageError } from '../../core/errors.js';
import { safeJson } from '../../output/safe-json.js';
import { signatureHeadersFromDump } from '../../webhooks/header-dump.js';
import { readWebhookSecret } from '../../webhooks/secret.js';
import { MAX_UNIX_SECONDS, verdict } from '../../webhooks/verify.js';
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
    if (ctx.io.stdinIsTTY)
      ctx.ui.notice(`reading ${flag === '--payload' ? 'the payload' : 'the header dump'} from stdin; end it with Ctrl-D`);
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

export async function run(ctx: Context, o: VerifyOptions): Promise<number> {
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
