// rfs webhooks trigger (cli.md, webhooks): one signed recording.completed delivery sent to a
// receiver as the service would send it (src/webhooks/test-delivery.ts), twice with --duplicate,
// and one row per request with the receiver's answer and time. Exit 0 when the receiver did what
// api.md asks of it: accepted (2xx) a valid delivery, refused a stale or badly signed one; else 8.
import { getRecording } from '../../../api/recordings.js';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../../core/errors.js';
import { readBounded } from '../../../core/bounded-read.js';
import { MAX_DELIVERY_BYTES } from '../../../shared/delivery.js';
import { writeList } from '../../../output/list-writer.js';
import type { Column } from '../../../output/table.js';
import { openDeliverySender, receiverUrl, type SendResult } from '../../../webhooks/send.js';
import { describeSecretSource, readWebhookSecret } from '../../../webhooks/secret.js';
import { buildTestDelivery, exampleRecording, STALE_SECONDS } from '../../../webhooks/test-delivery.js';
import type { Input } from './index.js';

export interface TriggerOptions {
  to: URL;
  secretEnv: string | undefined;
  secretFile: string | undefined;
  recordingId: string | undefined;
  /** --payload: a file whose bytes are the body, as they are. */
  payload: string | undefined;
  duplicate: boolean;
  stale: boolean;
  badSignature: boolean;
}

export function options({ flags }: Input): TriggerOptions {
  if (flags.payload !== undefined && flags.recording !== undefined)
    throw new UsageError('--payload and --recording both say what to send: give one');
  return {
    to: receiverUrl(flags.to),
    secretEnv: flags.secretEnv,
    secretFile: flags.secretFile,
    recordingId: flags.recording,
    payload: flags.payload,
    duplicate: flags.duplicate === true,
    stale: flags.stale === true,
    badSignature: flags.badSignature === true,
  };
}

/** One request's row: json and ndjson keep these fields, in this order. */
interface Sent {
  send: number;
  deliveryId: string;
  event: string;
  recordingId: string;
  signed: string;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** accepted (2xx), refused (4xx), or failed (anything else, or no answer). */
  answer: 'accepted' | 'refused' | 'failed';
  expected: 'accepted' | 'refused';
  ok: boolean;
}

function answerOf(r: SendResult): Sent['answer'] {
  if (r.status === null) return 'failed';
  if (r.status >= 200 && r.status < 300) return 'accepted';
  return r.status >= 400 && r.status < 500 ? 'refused' : 'failed';
}

const COLUMNS: readonly Column<Sent>[] = [
  { header: 'SEND', value: (s) => s.send, align: 'right' },
  { header: 'DELIVERY', value: (s) => s.deliveryId },
  { header: 'SIGNED', value: (s) => s.signed, dropOrder: 1 },
  { header: 'ANSWER', value: (s) => (s.status === null ? 'none' : `HTTP ${s.status}`) },
  { header: 'TIME', value: (s) => `${s.durationMs} ms`, align: 'right' },
  {
    header: 'RESULT',
    value: (s) => (s.ok ? `ok, ${s.answer}` : `NOT OK: ${s.answer}, should be ${s.expected}`) + (s.error === null ? '' : ` (${s.error})`),
    flex: true,
  },
];

export async function run(ctx: Context, o: TriggerOptions): Promise<number> {
  const secretSource = { secretEnv: o.secretEnv, secretFile: o.secretFile };
  const secret = await readWebhookSecret(secretSource, { env: ctx.io.env, onSecret: ctx.knowSecret });
  let recording: { id: string } & Record<string, unknown> = exampleRecording(ctx.clock.now());
  if (o.recordingId !== undefined) {
    const client = await ctx.api();
    recording = await getRecording(client, o.recordingId, { signal: ctx.signal });
    if (recording.status !== 'COMPLETED') {
      ctx.ui.warn(
        `recording ${o.recordingId} is ${String(recording.status)}: the service sends recording.completed only for COMPLETED ones`,
      );
    }
  }
  const payload =
    o.payload === undefined
      ? undefined
      : await readBounded(o.payload, {
          limit: MAX_DELIVERY_BYTES,
          what: `the file given to --payload (${o.payload})`,
          kind: 'a delivery',
          signal: ctx.signal,
        });
  const delivery = buildTestDelivery({ recording, payload, secret, nowMs: ctx.clock.now(), stale: o.stale, badSignature: o.badSignature });
  ctx.ui.notice(
    `sending delivery ${delivery.deliveryId} (${delivery.event}, recording ${delivery.recordingId}) to ${o.to.href}; ` +
      (delivery.signed === 'valid'
        ? `signed with the secret from ${describeSecretSource(secretSource)}`
        : [o.stale ? `signed ${STALE_SECONDS / 60} minutes ago` : '', o.badSignature ? 'signed with another secret' : '']
            .filter(Boolean)
            .join(', ')) +
      `: the receiver should ${delivery.expected === 'accepted' ? 'accept' : 'refuse'} it`,
  );

  // As the service sends it: the JSON body, its signature headers, and who sent it.
  const headers = { 'content-type': 'application/json', 'user-agent': 'rfs-webhooks-trigger', ...delivery.headers };
  const rows: Sent[] = [];
  for (let send = 1; send <= (o.duplicate ? 2 : 1); send++) {
    // A new connection for each, as the service's retry would come; the same bytes and headers
    // each time: a duplicate is the same delivery, not a new one.
    const sender = await openDeliverySender(o.to);
    const result = await sender.send(headers, delivery.body, ctx.signal).finally(() => sender.close());
    const answer = answerOf(result);
    rows.push({
      send,
      deliveryId: delivery.deliveryId,
      event: delivery.event,
      recordingId: delivery.recordingId,
      signed: delivery.signed,
      status: result.status,
      error: result.error,
      durationMs: result.durationMs,
      answer,
      expected: delivery.expected,
      ok: answer === delivery.expected,
    });
  }
  await writeList(ctx.io, ctx.globals.output, rows, { columns: COLUMNS, color: ctx.globals.color });
  return rows.every((r) => r.ok) ? EXIT.OK : EXIT.BATCH_FAILED;
}
