// What rfs webhooks listen received, for its inspector (cli.md, webhooks listen --inspect): each
// delivery with its request, verdict and the --forward-to target's answer, its replays, kept in
// the history file (./history.ts) and read back at start.
import type { IncomingHttpHeaders } from 'node:http';
import { sign } from '../shared/signature.js';
import { SIGNATURE_HEADERS } from '../shared/schemas.js';
import { forwardedHeaders, type ReceivedDelivery, type ReceivedRaw } from '../webhooks/receiver.js';
import type { SendResult } from '../webhooks/send.js';
import { HistoryFile, MAX_ENTRIES, readHistory } from './history.js';
import type { DeliveryDetail, DeliverySummary, Exchange } from './model.js';
import { InspectorError, type InspectorSource } from './source.js';

/** An answer as the history keeps it: the body as base64 (it may not be text). */
interface StoredAnswer {
  label: string;
  at: string;
  requestHeaders: Record<string, string>;
  status: number | null;
  headers: Record<string, string>;
  bodyBase64: string;
  bodyTruncated: boolean;
  error: string | null;
  durationMs: number;
}

/** One line of the history. */
export interface ListenEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBase64: string;
  deliveryId: string | null;
  event: string | null;
  recordingId: string | null;
  title: string | null;
  verdict: string;
  status: number;
  explanation: string;
  /** The forward of the delivery, then each replay, oldest first. */
  exchanges: StoredAnswer[];
}

function isListenEntry(value: unknown): value is ListenEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ListenEntry>;
  return (
    typeof v.id === 'string' &&
    typeof v.at === 'string' &&
    typeof v.bodyBase64 === 'string' &&
    typeof v.verdict === 'string' &&
    typeof v.status === 'number' &&
    typeof v.headers === 'object' &&
    v.headers !== null &&
    Array.isArray(v.exchanges)
  );
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function stored(label: string, at: number, requestHeaders: Record<string, string>, result: SendResult): StoredAnswer {
  return {
    label,
    at: new Date(at).toISOString(),
    requestHeaders,
    status: result.status,
    headers: result.headers,
    bodyBase64: result.body.toString('base64'),
    bodyTruncated: result.bodyTruncated,
    error: result.error,
    durationMs: result.durationMs,
  };
}

export interface ListenSourceOptions {
  /** The history file; undefined keeps nothing. */
  historyFile: string | undefined;
  /** --forward-to, where replays go. */
  forwardTo: string | undefined;
  /** The receiver's forward (RunningReceiver.forward). */
  forward: ((headers: Record<string, string>, body: Buffer) => Promise<SendResult>) | undefined;
  /** The secret a re-signed replay is signed with: read here, never sent to the page. */
  secret: () => string;
  /** The listener's own URL: where a curl command sends a delivery without --forward-to. */
  receiverUrl: string;
  now: () => number;
  /** Told when the history cannot be written (the inspector goes on without it). */
  onHistoryError: (error: unknown) => void;
}

export class ListenSource implements InspectorSource {
  private readonly entries = new Map<string, ListenEntry>();
  private readonly listeners = new Set<(summary: DeliverySummary) => void>();
  private history: HistoryFile<ListenEntry> | undefined;
  private next = 1;
  /** Lines of the history that could not be read back. */
  damaged = 0;

  private constructor(private readonly o: ListenSourceOptions) {}

  /** The history read back, then kept: a restart lists the same deliveries. */
  static async open(o: ListenSourceOptions): Promise<ListenSource> {
    const source = new ListenSource(o);
    if (o.historyFile !== undefined) {
      const read = await readHistory(o.historyFile, isListenEntry);
      source.damaged = read.damaged;
      for (const entry of read.entries) {
        source.entries.set(entry.id, entry);
        source.next = Math.max(source.next, Number(entry.id) + 1 || 0);
      }
      source.history = new HistoryFile(o.historyFile, read.entries);
      await source.history.start();
    }
    return source;
  }

  info() {
    return {
      kind: 'listen' as const,
      forwardTo: this.o.forwardTo ?? null,
      canReplay: this.o.forward !== undefined,
      canResign: this.o.forward !== undefined,
      hasRequests: false,
    };
  }

  /** A delivery the receiver reported, with the verdict the listener printed for it. */
  add(delivery: ReceivedDelivery, raw: ReceivedRaw, verdict: string, at: number): void {
    const headers = flatHeaders(raw.headers);
    const entry: ListenEntry = {
      id: String(this.next++),
      at: new Date(at).toISOString(),
      method: raw.method,
      path: raw.path,
      headers,
      bodyBase64: raw.body.toString('base64'),
      deliveryId: delivery.deliveryId,
      event: delivery.event,
      recordingId: delivery.recordingId,
      title: delivery.title,
      verdict,
      status: delivery.status,
      explanation: delivery.explanation,
      exchanges: delivery.forwarded === undefined ? [] : [stored('forward', at, forwardedHeaders(raw.headers), delivery.forwarded)],
    };
    this.entries.set(entry.id, entry);
    // The newest MAX_ENTRIES in memory, as in the file.
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.changed(entry);
  }

  list(): DeliverySummary[] {
    return [...this.entries.values()].reverse().map(summary);
  }

  detail(id: string): DeliveryDetail | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    return {
      ...summary(entry),
      explanation: entry.explanation,
      request: {
        method: entry.method,
        path: entry.path,
        headers: entry.headers,
        body: Buffer.from(entry.bodyBase64, 'base64').toString('utf8'),
      },
      exchanges: entry.exchanges.map((e) => exchange(e, this.o.forwardTo ?? null)),
    };
  }

  body(id: string): Buffer | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : Buffer.from(entry.bodyBase64, 'base64');
  }

  curlTarget(): string {
    return this.o.forwardTo ?? this.o.receiverUrl;
  }

  async replay(id: string, resign: boolean): Promise<Exchange> {
    const entry = this.entries.get(id);
    if (entry === undefined) throw new InspectorError(404, `no delivery ${id}`);
    if (this.o.forward === undefined) throw new InspectorError(409, 'replay sends a delivery to --forward-to: start listen with it');
    const body = Buffer.from(entry.bodyBase64, 'base64');
    const headers = forwardedHeaders(entry.headers);
    if (resign) {
      // A fresh timestamp and its signature, so that the target's tolerance does not call it stale.
      const timestamp = Math.floor(this.o.now() / 1000);
      headers[SIGNATURE_HEADERS.timestamp] = String(timestamp);
      headers[SIGNATURE_HEADERS.signature] = sign(this.o.secret(), timestamp, body);
    }
    const at = this.o.now();
    const result = await this.o.forward(headers, body);
    const answer = stored(resign ? 'replay re-signed' : 'replay as sent', at, headers, result);
    entry.exchanges.push(answer);
    this.changed(entry);
    return exchange(answer, this.o.forwardTo ?? null);
  }

  subscribe(listener: (summary: DeliverySummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Waits for the history's writes. */
  async close(): Promise<void> {
    await this.history?.flushed();
  }

  private changed(entry: ListenEntry): void {
    this.history?.append(entry).catch((error: unknown) => this.o.onHistoryError(error));
    const row = summary(entry);
    for (const listener of this.listeners) listener(row);
  }
}

function summary(entry: ListenEntry): DeliverySummary {
  const last = entry.exchanges.at(-1);
  return {
    id: entry.id,
    at: entry.at,
    event: entry.event,
    deliveryId: entry.deliveryId,
    recordingId: entry.recordingId,
    title: entry.title,
    verdict: entry.verdict,
    status: entry.status,
    target: last === undefined ? null : { status: last.status, durationMs: last.durationMs, error: last.error },
  };
}

function exchange(e: StoredAnswer, url: string | null): Exchange {
  return {
    label: e.label,
    at: e.at,
    url,
    request: { headers: e.requestHeaders, body: null },
    response: {
      status: e.status,
      headers: e.headers,
      body: Buffer.from(e.bodyBase64, 'base64').toString('utf8'),
      bodyTruncated: e.bodyTruncated,
      error: e.error,
      durationMs: e.durationMs,
    },
  };
}
