// rfs webhooks listen (cli.md, webhooks): a local receiver for debugging an integration. Each
// delivery is verified as verify-signature does (src/webhooks/receiver.ts) and printed as one
// line: a table row on a terminal, ndjson otherwise. Runs until Ctrl-C, then exits 0.
import type { IO } from '../../../core/io.js';
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
import { beyondLoopbackWarning } from '../../../core/listen.js';
import { MAX_UNIX_SECONDS } from '../../../webhooks/verify.js';
import { numberFlag } from '../../../core/flags.js';
import type { Input } from './index.js';

export interface ListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  toleranceSeconds: number;
  forwardTo: string | undefined;
  secretEnv: string | undefined;
  secretFile: string | undefined;
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

/**
 * The delivery's texts with the run's secrets taken out before a row is laid out: a title cut
 * to the column's width would otherwise leave a piece of one that stdout cannot recognise.
 */
function laidOut(io: IO, d: ReceivedDelivery): ReceivedDelivery {
  const redact = io.redactText;
  if (redact === undefined) return d;
  const text = (value: string | null): string | null => (value === null ? null : redact(value));
  return { ...d, deliveryId: text(d.deliveryId), event: text(d.event), recordingId: text(d.recordingId), title: text(d.title) };
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
  const secret = await readWebhookSecret(secretSource, { env: ctx.io.env, onSecret: ctx.knowSecret });
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
      const line = tableLines({ at, delivery: laidOut(io, d) }, fit).row;
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
    secret,
    toleranceSeconds: o.toleranceSeconds,
    ...(o.forwardTo === undefined ? {} : { forwardTo: o.forwardTo }),
    now: io.now,
    onDelivery,
    onRefused: (r) => ui.warn(`refused a ${r.method} request (HTTP ${r.status}): ${r.message}`),
  });
  let stopped: { error: unknown } | undefined;
  try {
    // Printed even with --quiet: with --port 0 this line is the only way to learn the port.
    // The address really bound; a wildcard also says how this machine reaches it.
    const where =
      receiver.wildcardUrl === undefined ? receiver.url : `${receiver.wildcardUrl} (every interface; ${receiver.url} from this machine)`;
    io.stderr.write(`listening on ${where}\n`);
    const exposed = beyondLoopbackWarning(o.host, `--host ${o.host}`, 'the receiver');
    if (exposed !== undefined) ui.warn(exposed);
    ui.notice(
      [
        `verifying with the secret from ${describeSecretSource(secretSource)}, tolerance ${o.toleranceSeconds} s`,
        ...(o.forwardTo === undefined ? [] : [`forwarding valid deliveries to ${o.forwardTo}`]),
        'Ctrl-C to stop',
      ].join('; '),
    );
    if (asTable) print(`${tableLines(PLACEHOLDER, fit).header}\n`);
    const interrupted = ctx.signal.aborted ? Promise.resolve(undefined) : once(ctx.signal, 'abort').then(() => undefined);
    stopped = await Promise.race([interrupted, outputFailure]);
  } finally {
    await receiver.close();
  }
  await output;
  if (stopped) throw stopped.error;
  ui.notice('stopped listening');
  return EXIT.OK;
}
