// rfs webhooks listen (cli.md, webhooks): a local receiver for debugging an integration. Each
// delivery is verified as verify-signature does (src/webhooks/receiver.ts) and printed as one
// line: a table row on a terminal, ndjson otherwise. Runs until Ctrl-C, then exits 0.
import { randomBytes } from 'node:crypto';
import type { IO } from '../../../core/io.js';
import { once } from 'node:events';
import { Chalk } from 'chalk';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../../core/errors.js';
import { interruptionText, stopSignalOf } from '../../../core/interrupt.js';
import { writeOut } from '../../../output/list-writer.js';
import { safeJson } from '../../../output/safe-json.js';
import { sanitize } from '../../../core/sanitize.js';
import { type Column, pad, renderTable, truncate } from '../../../output/table.js';
import {
  forwardTarget,
  type ReceivedDelivery,
  type ReceivedRaw,
  type RunningReceiver,
  startWebhookReceiver,
} from '../../../webhooks/receiver.js';
import type { ListenSource, ReplayReport } from '../../../inspector/listen-source.js';
import { describeSecretSource, readWebhookSecret } from '../../../webhooks/secret.js';
import { beyondLoopbackWarning, inspectAddressFlag } from '../../../core/listen.js';
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
  /** --inspect: where the inspector serves; undefined without. */
  inspect: { host: string; port: number } | undefined;
  /** --history: the inspector's history file; undefined for the default (one per port). */
  history: string | undefined;
  /** --subscribe: a subscription made for this receiver (subscribe.ts); undefined without. */
  subscribe: { publicUrl: string | undefined; events: string[] } | undefined;
}

export function options({ flags }: Input): ListenOptions {
  const host = flags.host;
  if (host.trim() === '' || /[\s\u0000-\u001f]/.test(host)) {
    throw new UsageError(`invalid --host ${JSON.stringify(host)}: expected an address such as 127.0.0.1`);
  }
  const inspect = flags.inspect === undefined ? undefined : inspectAddressFlag(flags.inspect);
  if (flags.history !== undefined && inspect === undefined)
    throw new UsageError('--history keeps what the inspector shows: give --inspect too');
  return {
    host,
    inspect,
    history: flags.history,
    port: numberFlag('--port', flags.port, { min: 0, max: 65_535, integer: true }),
    toleranceSeconds: numberFlag('--tolerance', flags.tolerance, { min: 0, max: MAX_UNIX_SECONDS, integer: true }),
    forwardTo: flags.forwardTo === undefined ? undefined : forwardTarget(flags.forwardTo),
    secretEnv: flags.secretEnv,
    secretFile: flags.secretFile,
    subscribe: subscribeOptions(flags),
  };
}

/** The ndjson line of one delivery: exactly the fields of cli.md, in a stable order. */
function deliveryJson(d: ReceivedDelivery, duplicate: boolean): Record<string, unknown> {
  return {
    deliveryId: d.deliveryId,
    event: d.event,
    recordingId: d.recordingId,
    title: d.title,
    verdict: d.valid ? 'valid' : 'invalid',
    reason: d.reason,
    status: d.status,
    // api.md: receivers must tolerate duplicates; a second valid delivery of one id says so.
    duplicate,
  };
}

interface Row {
  at: number;
  delivery: ReceivedDelivery;
  duplicate: boolean;
  /** A replay made from the inspector (--inspect): its row says the app's answer to it. */
  replay?: ReplayReport;
}

/**
 * The ndjson line of a replay made from the inspector (docs/inspector.md, Replays in the
 * output): what was sent again and what the app answered; never a header, so never a signature.
 */
function replayJson(r: ReplayReport): Record<string, unknown> {
  return {
    replay: r.kind,
    deliveryId: r.deliveryId,
    event: r.event,
    recordingId: r.recordingId,
    title: r.title,
    status: r.status,
    durationMs: r.durationMs,
    error: r.error,
  };
}

/** A replay's row: the delivery's texts, with the app's answer to the replay. */
function replayRow(r: ReplayReport): Row {
  return {
    at: r.at,
    duplicate: false,
    replay: r,
    delivery: {
      deliveryId: r.deliveryId,
      event: r.event,
      recordingId: r.recordingId,
      title: r.title,
      valid: true,
      reason: null,
      explanation: '',
      ageSeconds: null,
      status: r.status ?? 0,
    },
  };
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
 * The verdict in as few words as say it: `valid`, `duplicate` (valid, and seen before), or the
 * reason a delivery was refused (`stale`, `mismatch`, `malformed`, `missing`; STATUS says 401).
 */
function verdict(row: Row): string {
  if (row.replay !== undefined) return 'replay';
  if (!row.delivery.valid) return row.delivery.reason ?? 'invalid';
  return row.duplicate ? 'duplicate' : 'valid';
}

/**
 * Rows are printed one at a time, as the deliveries arrive, so every cell is padded to one
 * width (what the service sends: `dlv_` + 20 characters, `rec_` + 16, `recording.completed`;
 * a verdict at most 9): the rows of one width line up under its header.
 */
function fixed(width: number, value: (row: Row) => string | number | null): (row: Row) => string {
  return (row) => pad(truncate(sanitize(String(value(row) ?? '-')), width), width);
}

// EVENT says the same on every row (there is one event kind today): it goes whenever a row with a
// title of a usual length would not fit whole, before the title is cut. Narrower, TIME goes, then
// RECORDING (60 columns: the verdict, the status, the delivery and the title stay); the title,
// last, takes what is left of the width of the moment. STATUS is never left out: with
// --forward-to it is the app's answer, and without it an app's 500 would read as a success.
// With --forward-to, TOOK (how long the target took to answer) follows STATUS, and goes right
// after EVENT.
function listenColumns(forwarding: boolean): readonly Column<Row>[] {
  const took: Column<Row>[] = forwarding
    ? [
        {
          header: 'TOOK',
          value: fixed(8, (r) => {
            const took = r.replay?.durationMs ?? r.delivery.forwarded?.durationMs;
            return took === undefined ? null : `${took} ms`;
          }),
          dropOrder: 2,
        },
      ]
    : [];
  const later = forwarding ? 1 : 0;
  return [
    { header: 'TIME', value: fixed(8, (r) => clock(r.at)), dropOrder: 2 + later },
    { header: 'VERDICT', value: fixed(9, verdict) },
    { header: 'STATUS', value: fixed(6, (r) => (r.replay === undefined ? r.delivery.status : r.replay.status)) },
    ...took,
    { header: 'DELIVERY', value: fixed(24, (r) => r.delivery.deliveryId) },
    { header: 'EVENT', value: fixed(19, (r) => r.delivery.event), dropOrder: 1 },
    { header: 'RECORDING', value: fixed(20, (r) => r.delivery.recordingId), dropOrder: 3 + later },
    // Padded to the table's smallest flexible width (10), so that which columns fit never
    // depends on one title's length.
    // A replay's title says how it was sent again: `[re-signed] …`.
    {
      header: 'TITLE',
      value: (r) => pad(sanitize(`${r.replay === undefined ? '' : `[${r.replay.kind}] `}${r.delivery.title ?? '-'}`), 10),
      flex: true,
    },
  ];
}

/** Columns whose value is the same on every row today: left out first when a row does not fit. */
const ONE_VALUE = ['EVENT'];

const PLACEHOLDER: Row = {
  at: 0,
  duplicate: false,
  delivery: {
    deliveryId: null,
    event: null,
    recordingId: null,
    // The row that chooses the columns for a width (ListenTable): a title of a usual length
    // (60 cells); the header printed before any delivery is its header.
    title: 'x'.repeat(60),
    valid: true,
    reason: null,
    explanation: '',
    ageSeconds: null,
    status: 0,
  },
};

/** How many delivery ids are remembered to mark duplicates: bounded, as the receiver runs for hours. */
const REMEMBERED_IDS = 10_000;

/**
 * The rows of the listener's table. A live table's columns are chosen from the terminal's width
 * alone, once for each width (cli.md, Output), never from the row that arrives: a title of a
 * usual length (PLACEHOLDER) decides which columns fit, and each row is laid out in those, its
 * title cut to what is left. Titles of every length then line up under one header; a resized
 * window chooses again, and the header is printed again only when the columns shown change.
 */
class ListenTable {
  private chosen: { width: number; columns: readonly Column<Row>[]; key: string } | undefined;
  private printedKey: string | undefined;

  constructor(
    private readonly width: () => number,
    private readonly color: boolean,
    private readonly columns: readonly Column<Row>[],
  ) {}

  /** The columns shown at `width`: those the placeholder row keeps, EVENT first to go. */
  private columnsFor(width: number): { columns: readonly Column<Row>[]; key: string } {
    if (this.chosen?.width === width) return this.chosen;
    const [header = ''] = renderTable(this.columns, [PLACEHOLDER], { width, color: false, fixed: ONE_VALUE }).split('\n');
    const shown = header.split(/\s+/).filter((h) => h !== '');
    const columns = this.columns.filter((c) => shown.includes(c.header));
    this.chosen = { width, columns, key: shown.join(' ') };
    return this.chosen;
  }

  /** The header line and the row at the current width; the header only when the columns changed. */
  lines(row: Row): { header: string | undefined; row: string } {
    const width = this.width();
    const { columns, key } = this.columnsFor(width);
    const [header = '', line = ''] = renderTable(columns, [row], { width, color: this.color }).split('\n');
    const changed = key !== this.printedKey;
    this.printedKey = key;
    return { header: changed ? header : undefined, row: line };
  }
}

/** The inspector of --inspect (src/inspector/), its modules loaded here only. */
async function startListenInspector(
  ctx: Context,
  o: ListenOptions,
  address: { host: string; port: number },
  receiver: RunningReceiver,
  secret: () => string,
  onReplay: (replay: ReplayReport) => void,
): Promise<{ source: ListenSource; server: { close(): Promise<void> } }> {
  const { startListenInspector: start } = await import('../../../inspector/listen.js');
  return start({
    address,
    historyFile: o.history,
    env: ctx.io.env,
    receiver,
    forwardTo: o.forwardTo,
    secret,
    redactText: ctx.io.redactText,
    now: ctx.clock.now,
    say: (line) => ctx.ui.say(line),
    warn: (line) => ctx.ui.warn(line),
    onReplay,
  });
}

export async function run(ctx: Context, o: ListenOptions): Promise<number> {
  const secretSource = { secretEnv: o.secretEnv, secretFile: o.secretFile };
  // With --subscribe, the subscription's own secret, known once it is made (after binding).
  let secret = o.subscribe
    ? randomBytes(32).toString('hex')
    : await readWebhookSecret(secretSource, { env: ctx.io.env, onSecret: ctx.knowSecret });
  const { io, ui } = ctx;
  const asTable = ctx.globals.output === 'table';
  const table = new ListenTable(() => (io.columns > 0 ? io.columns : 80), ctx.globals.color, listenColumns(o.forwardTo !== undefined));
  const seen = new Set<string>();
  const chalk = new Chalk({ level: ctx.globals.color ? 1 : 0 });

  // Lines go out in arrival order; a failed write (the reader of stdout went away) stops the
  // receiver, as Ctrl-C does, and is reported once it is closed.
  let output: Promise<void> = Promise.resolve();
  let outputFailed: (failure: { error: unknown }) => void = () => undefined;
  const outputFailure = new Promise<{ error: unknown }>((resolve) => (outputFailed = resolve));
  const print = (text: string): void => {
    output = output.then(() => writeOut(io.stdout, text)).catch((error: unknown) => outputFailed({ error }));
  };

  // --inspect: the inspector's record of each delivery, set once the receiver is bound (its
  // port names the default history file); loaded only with the flag.
  let inspection: ListenSource | undefined;
  let accepting = false;
  const onDelivery = (d: ReceivedDelivery, raw: ReceivedRaw): void => {
    const at = ctx.clock.now();
    const duplicate = d.valid && d.deliveryId !== null && seen.has(d.deliveryId);
    if (d.valid && d.deliveryId !== null && !duplicate) {
      seen.add(d.deliveryId);
      if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value as string);
    }
    inspection?.add(d, raw, verdict({ at, delivery: d, duplicate }), at);
    if (asTable) {
      const { header, row } = table.lines({ at, delivery: laidOut(io, d), duplicate });
      print(`${header === undefined ? '' : `${header}\n`}${d.valid && d.status < 300 ? row : chalk.red(row)}\n`);
    } else {
      print(`${safeJson(deliveryJson(d, duplicate))}\n`);
    }
    const id = d.deliveryId ?? '(no x-service-delivery header)';
    if (!d.valid) ui.warn(`refused delivery ${id} (HTTP ${d.status}): ${d.reason ?? 'invalid'}: ${d.explanation}`);
    if (d.forwardError !== undefined)
      ui.warn(`could not forward delivery ${id} to ${o.forwardTo ?? ''}: ${d.forwardError} (answered HTTP 502)`);
  };

  // A replay made from the inspector: one line, as a delivery has (table row or ndjson object).
  const onReplay = (r: ReplayReport): void => {
    if (asTable) {
      const row = replayRow(r);
      const { header, row: line } = table.lines({ ...row, delivery: laidOut(io, row.delivery) });
      const ok = r.status !== null && r.status < 300;
      print(`${header === undefined ? '' : `${header}\n`}${ok ? line : chalk.red(line)}\n`);
    } else {
      print(`${safeJson(replayJson(r))}\n`);
    }
    if (r.error !== null) ui.warn(`could not replay delivery ${r.deliveryId ?? r.id} (${r.kind}) to ${o.forwardTo ?? ''}: ${r.error}`);
  };

  const receiver = await startWebhookReceiver({
    host: o.host,
    port: o.port,
    secret: () => secret,
    toleranceSeconds: o.toleranceSeconds,
    ...(o.forwardTo === undefined ? {} : { forwardTo: o.forwardTo }),
    now: ctx.clock.now,
    onDelivery,
    onRefused: (r) => ui.warn(`refused a ${r.method} request (HTTP ${r.status}): ${r.message}`),
    // GET /healthz: 200 once the subscription (--subscribe) and the inspector (--inspect) are set.
    ready: () => accepting,
  });
  let stopped: { error: unknown } | undefined;
  let subscription: ListenSubscription | undefined;
  let inspector: { close(): Promise<void> } | undefined;
  try {
    // Printed even with --quiet: with --port 0 this line is the only way to learn the port.
    // The address really bound; a wildcard also says how this machine reaches it.
    const where =
      receiver.wildcardUrl === undefined ? receiver.url : `${receiver.wildcardUrl} (every interface; ${receiver.url} from this machine)`;
    ui.say(`listening on ${where}`);
    const exposed = beyondLoopbackWarning(o.host, `--host ${o.host}`, 'the receiver');
    if (exposed !== undefined) ui.warn(exposed);
    if (o.subscribe) {
      subscription = await subscribe(ctx, { receiverUrl: receiver.url, ...o.subscribe });
      secret = subscription.secret;
      // Shown once on stderr (cli.md), then redacted by every writer of this run.
      announceSubscription(ctx, subscription);
      ctx.knowSecret(secret);
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
    if (o.inspect !== undefined) {
      const started = await startListenInspector(ctx, o, o.inspect, receiver, () => secret, onReplay);
      inspection = started.source;
      inspector = started.server;
    }
    if (asTable) print(`${table.lines(PLACEHOLDER).header ?? ''}\n`);
    accepting = true;
    const interrupted = ctx.signal.aborted ? Promise.resolve(undefined) : once(ctx.signal, 'abort').then(() => undefined);
    stopped = await Promise.race([interrupted, outputFailure]);
  } finally {
    try {
      if (subscription) await removeSubscription(ctx, subscription);
    } finally {
      await receiver.close();
      await inspector?.close();
      await inspection?.close();
    }
  }
  await output;
  if (stopped) throw stopped.error;
  // Stopping is what listen is for (exit 0); a signal from outside is named (cli.md, 130).
  const by = stopSignalOf(ctx.signal);
  ui.notice(by === undefined || by === 'SIGINT' ? 'stopped listening' : `stopped listening: ${interruptionText(by)}`);
  return EXIT.OK;
}
