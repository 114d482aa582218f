// rfs webhooks sign (cli.md, webhooks): the four x-service-* headers of api.md for a body, signed
// with the one signature module (src/shared/delivery.ts over src/shared/signature.ts), for
// building test requests. The event and delivery id come from the body when it is a payload
// (`{id, event, …}`), else recording.completed and a new delivery id. The secret is never printed.
import type { Context } from '../../context.js';
import { readBounded } from '../../../core/bounded-read.js';
import { EXIT, RfsError, UsageError } from '../../../core/errors.js';
import { numberFlag } from '../../../core/flags.js';
import { sanitize } from '../../../core/sanitize.js';
import { safeJson } from '../../../output/safe-json.js';
import { COMPLETED_EVENT, deliveryHeaders, MAX_DELIVERY_BYTES } from '../../../shared/delivery.js';
import { readWebhookSecret } from '../../../webhooks/secret.js';
import { newDeliveryId } from '../../../shared/ids.js';
import { MAX_UNIX_SECONDS } from '../../../webhooks/verify.js';
import type { Input } from './index.js';

export interface SignOptions {
  /** A file, or `-` for stdin. */
  payload: string;
  secretEnv: string | undefined;
  secretFile: string | undefined;
  /** Unix seconds; undefined for now. */
  timestamp: number | undefined;
}

export function options({ flags }: Input): SignOptions {
  return {
    payload: flags.payload,
    secretEnv: flags.secretEnv,
    secretFile: flags.secretFile,
    timestamp: numberFlag('--timestamp', flags.timestamp, { min: 0, max: MAX_UNIX_SECONDS, integer: true }),
  };
}

async function readPayload(ctx: Context, source: string): Promise<Buffer> {
  if (source === '-' && ctx.io.stdinIsTTY) ctx.ui.notice('reading the payload from stdin; end it with Ctrl-D');
  try {
    // The receivers of rfs take bodies up to this size; a larger one is not a delivery.
    return await readBounded(source === '-' ? ctx.io.stdin : source, {
      limit: MAX_DELIVERY_BYTES,
      what: source === '-' ? 'the payload on stdin' : 'the --payload file',
      kind: 'a delivery payload',
      signal: ctx.signal,
    });
  } catch (error) {
    if (error instanceof RfsError) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    throw new UsageError(`cannot read --payload ${JSON.stringify(source)} (${typeof code === 'string' ? code : 'unreadable'})`, {
      cause: error,
    });
  }
}

/** The payload's own id and event, when the body is one. */
function payloadNames(body: Buffer): { deliveryId: string | undefined; event: string | undefined } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { id?: unknown; event?: unknown } | null;
    const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
    return { deliveryId: text(parsed?.id), event: text(parsed?.event) };
  } catch {
    return { deliveryId: undefined, event: undefined };
  }
}

export async function run(ctx: Context, o: SignOptions): Promise<number> {
  // The secret first: without it the payload is not worth reading (and stdin stays unread).
  const secret = await readWebhookSecret(
    { secretEnv: o.secretEnv, secretFile: o.secretFile },
    { env: ctx.io.env, onSecret: ctx.knowSecret },
  );
  const body = await readPayload(ctx, o.payload);
  const named = payloadNames(body);
  const headers = deliveryHeaders({
    secret,
    timestamp: o.timestamp ?? Math.floor(ctx.clock.now() / 1000),
    body,
    event: named.event ?? COMPLETED_EVENT,
    deliveryId: named.deliveryId ?? newDeliveryId(),
  });
  // cli.md: sign prints the header lines, `-o json` the object of them. Only -o/--json on this
  // command line chooses the object: the json that a pipe (or a profile's default) would give
  // other commands would hand `curl -H @-` a `{` as its first header.
  const format = ctx.globals.outputFlagged === true ? ctx.globals.output : 'table';
  // The signature is not the secret: it is what a delivery carries in the clear.
  if (format === 'json') ctx.io.stdout.write(`${safeJson(headers, 2)}\n`);
  else if (format === 'ndjson') ctx.io.stdout.write(`${safeJson(headers)}\n`);
  else {
    // `name: value` lines, as in a request: readable, and ready for `curl -H @-`.
    ctx.io.stdout.write(
      `${Object.entries(headers)
        .map(([name, value]) => `${name}: ${sanitize(value)}`)
        .join('\n')}\n`,
    );
  }
  return EXIT.OK;
}
