// rfs webhooks listen (cli.md, webhooks): a local receiver for debugging an integration. Each
// delivery is verified as verify-signature does (src/webhooks/receiver.ts) and printed as one
// line: a table row on a terminal, ndjson otherwise. Runs until Ctrl-C, then exits 0.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Chalk } from 'chalk';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../../core/errors.js';
import { writeOut } from '../../../output/list-writer.js';
import { safeJson } from '../../../output/safe-json.js';
import { sanitize } from '../../../core/sanitize.js';
import { type Column, pad, renderTable, truncate } from '../../../output/table.js';
import { forwardTarget, type ReceivedDelivery, startWebhookReceiver } from '../../../webhooks/receiver.js';
import { describeSecretSource, readWebhookSecret } from '../../../webhooks/secret.js';
import { MAX_UNIX_SECONDS } from '../../../webhooks/verify.js';
import { numberFlag } from '../../../core/flags.js';
import { announceSubscription, type ListenSubscription, removeSubscription, subscribe, subscribeOptions } from './subscribe.js';
import type { Input } from './index.js';

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  toleranceSeconds: number;
  forwardTo: string | undefined;
  secretEnv: string | undefined;
  secretFile: string | undefined;
  /** --subscribe: a subscription made for this receiver (subscribe.ts); undefined without. */
  subscribe: { publicUrl: string | undefined; events: string[] } | undefined;
}

export function options({ flags }: Input): ListenOptions {
  const host = flags.host;
  if (host.trim() === '' || /[\s\u0000-\u001f]/.test(host)) {
    throw new UsageError(`invalid --host ${JSON.stringify(host)}: expected an address such as 127.0.0.1`);
  }
  return {
    host,
    port: numberFlag('--port', flags.port, { min: 0, max: 65_535, integer: true }),
    toleranceSeconds: numberFlag('--tolerance', flags.tolerance, { min: 0, max: MAX_UNIX_SECONDS, integer: true }),
    forwardTo: flags.forwardTo === undefined ? undefined : forwardTarget(flags.forwardTo),
    secretEnv: flags.secretEnv,
    secretFile: flags.secretFile,
    subscribe: subscribeOptions(flags),
  };
}

/** The ndjson line of one delivery: exactly the fields of cli.md, in a stable order. */
function deliveryJson(d: ReceivedDelivery): Record<string, unknown> {
  return {
    deliveryId: d.deliveryId,
    event: d.event,
    recordingId: d.recordingId,
    title: d.title,
    verdict: d.valid ? 'valid' : 'invalid',
    reason: d.reason,
    status: d.status,
  };
}

interface Row {
  at: number;
  delivery: ReceivedDelivery;
}

function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/**
 * Rows are printed one at a time, as the deliveries arrive, so every cell is cut or padded to
 * one width: each row then lines up under the header printed at the start.
 */
function fixed(width: number, value: (d: ReceivedDelivery, at: number) => string | number | null): (row: Row) => string {
  return (row) => pad(truncate(sanitize(String(value(row.delivery, row.at) ?? '-')), width), width);
}

// The title is last, so its width moves nothing else; padded to renderTable's smallest flexible
// width (10), so that which columns fit never depends on one title's length.
const title = (row: Row): string => pad(sanitize(row.delivery.title ?? '-'), 10);

// The widths of what the sandbox sends: `dlv_` + 20 characters, `rec_` + 16, `recording.completed`.
// Narrow terminals drop EVENT first (there is one event kind today), then TIME, then STATUS.
const COLUMNS: readonly Column<Row>[] = [
  { header: 'TIME', value: fixed(8, (_, at) => clock(at)), dropOrder: 2 },
  { header: 'VERDICT', value: fixed(18, (d) => (d.valid ? 'valid' : `invalid: ${d.reason ?? '?'}`)) },
  { header: 'STATUS', value: fixed(6, (d) => d.status), dropOrder: 3 },
  { header: 'DELIVERY', value: fixed(24, (d) => d.deliveryId) },
  { header: 'EVENT', value: fixed(19, (d) => d.event), dropOrder: 1 },
  { header: 'RECORDING', value: fixed(20, (d) => d.recordingId) },
  { header: 'TITLE', value: title, flex: true },
];

const PLACEHOLDER: Row = {
  at: 0,
  delivery: {
    deliveryId: null,
    event: null,
    recordingId: null,
    title: null,
    valid: true,
    reason: null,
    explanation: '',
    ageSeconds: null,
    status: 0,
  },
};

/** The header line and one row, as renderTable fits them to the terminal (same widths every time). */
function tableLines(row: Row, o: { width: number; color: boolean }): { header: string; row: string } {
  const [header = '', line = ''] = renderTable(COLUMNS, [row], o).split('\n');
  return { header, row: line };
}

export async function run(ctx: Context, o: ListenOptions): Promise<number> {
  const secretSource = { secretEnv: o.secretEnv, secretFile: o.secretFile };
  // With --subscribe, the subscription's own secret, known once it is made (after binding).
  let secret = o.subscribe ? randomBytes(32).toString('hex') : await readWebhookSecret(secretSource, { env: ctx.io.env });
  const { io, ui } = ctx;
  const asTable = ctx.globals.output === 'table';
  const fit = { width: io.columns, color: ctx.globals.color };
  const chalk = new Chalk({ level: ctx.globals.color ? 1 : 0 });

  // Lines go out in arrival order; a failed write (the reader of stdout went away) stops the
  // receiver, as Ctrl-C does, and is reported once it is closed.
  let output: Promise<void> = Promise.resolve();
  let outputFailed: (failure: { error: unknown }) => void = () => undefined;
  const outputFailure = new Promise<{ error: unknown }>((resolve) => (outputFailed = resolve));
  const print = (text: string): void => {
    output = output.then(() => writeOut(io.stdout, text)).catch((error: unknown) => outputFailed({ error }));
  };

  const onDelivery = (d: ReceivedDelivery): void => {
    const at = io.now();
    if (asTable) {
      const line = tableLines({ at, delivery: d }, fit).row;
      print(`${d.valid && d.status < 300 ? line : chalk.red(line)}\n`);
    } else {
      print(`${safeJson(deliveryJson(d))}\n`);
    }
    const id = d.deliveryId ?? '(no x-service-delivery header)';
    if (!d.valid) ui.warn(`refused delivery ${id} (HTTP ${d.status}): ${d.reason ?? 'invalid'}: ${d.explanation}`);
    if (d.forwardError !== undefined)
      ui.warn(`could not forward delivery ${id} to ${o.forwardTo ?? ''}: ${d.forwardError} (answered HTTP 502)`);
  };

  const receiver = await startWebhookReceiver({
    host: o.host,
    port: o.port,
    secret: () => secret,
    toleranceSeconds: o.toleranceSeconds,
    ...(o.forwardTo === undefined ? {} : { forwardTo: o.forwardTo }),
    now: io.now,
    onDelivery,
    onRefused: (r) => ui.warn(`refused a ${r.method} request (HTTP ${r.status}): ${r.message}`),
  });
  let stopped: { error: unknown } | undefined;
  let subscription: ListenSubscription | undefined;
  try {
    // Printed even with --quiet: with --port 0 this line is the only way to learn the port.
    io.stderr.write(`listening on ${receiver.url}\n`);
    if (o.subscribe) {
      subscription = await subscribe(ctx, { receiverUrl: receiver.url, ...o.subscribe });
      secret = subscription.secret;
      announceSubscription(ctx, subscription);
    }
    ui.notice(
      [
        subscription
          ? `verifying with the secret of subscription ${subscription.id}, tolerance ${o.toleranceSeconds} s`
          : `verifying with the secret from ${describeSecretSource(secretSource)}, tolerance ${o.toleranceSeconds} s`,
        ...(o.forwardTo === undefined ? [] : [`forwarding valid deliveries to ${o.forwardTo}`]),
        'Ctrl-C to stop',
      ].join('; '),
    );
    if (asTable) print(`${tableLines(PLACEHOLDER, fit).header}\n`);
    const interrupted = ctx.signal.aborted ? Promise.resolve(undefined) : once(ctx.signal, 'abort').then(() => undefined);
    stopped = await Promise.race([interrupted, outputFailure]);
  } finally {
    try {
      if (subscription) await removeSubscription(ctx, subscription);
    } finally {
      await receiver.close();
    }
  }
  await output;
  if (stopped) throw stopped.error;
  ui.notice('stopped listening');
  return EXIT.OK;
}
