// What rfs webhooks listen received, for its inspector (cli.md, webhooks listen --inspect): each
// delivery with its request, verdict and the --forward-to target's answer, its replays, kept in
// the history file (./history.ts) and read back at start.
import type { IncomingHttpHeaders } from 'node:http';
import { sign, verifySignature } from '../shared/signature.js';
import { SIGNATURE_HEADERS } from '../shared/schemas.js';
import { forwardedHeaders, type ReceivedDelivery, type ReceivedRaw } from '../webhooks/receiver.js';
import type { SendResult } from '../webhooks/send.js';
import { HistoryFile, type HistoryLine, HistoryPathError, type HistoryParts, MAX_ENTRIES, readHistory } from './history.js';
import { base64Length, entryBytes, MAX_KEPT_BYTES, NO_BODY, trimToBudget } from './kept-bytes.js';
import { setAside } from '../core/state-file.js';

/** A refused delivery's body is kept only this far: anyone can POST to the receiver (cli.md, Bounds). */
export const MAX_REFUSED_BODY_BYTES = 16 * 1024;
/**
 * Refused deliveries kept: the newest this many, apart from the verified ones (the newest
 * MAX_ENTRIES), so that POSTs anyone can send (any web page, no-cors) never push a verified one
 * out of the list or the history (cli.md, Bounds).
 */
export const MAX_REFUSED_ENTRIES = 200;
/** Texts shown in the list (title, ids, event) are cut to this many characters. */
export const MAX_LIST_TEXT = 200;
/** The exchanges kept per delivery: its forward and the newest replays, this many in all. */
export const MAX_EXCHANGES = 20;
/** An edited body sent by a replay: at most this many bytes. */
export const MAX_EDITED_BODY_BYTES = 64 * 1024;
/** The verdicts of a delivery that verified: only these are replayed or re-signed (cli.md, Trust). */
const VERIFIED = new Set(['valid', 'duplicate']);
const FORWARD = 'forward';
/** A replay with the delivery's own headers: the signature it carries is the sender's. */
const AS_SENT = 'replay as sent';
import type { DeliveryDetail, DeliverySummary, Exchange } from './model.js';
import { InspectorError, type InspectorSource } from './source.js';

/** An answer as the history writes it: the body as base64 (it may not be text). */
interface StoredAnswer {
  label: string;
  at: string;
  requestHeaders: Record<string, string>;
  /** An edited replay's body, as base64; absent when the delivery's own body went. */
  requestBodyBase64?: string;
  status: number | null;
  headers: Record<string, string>;
  bodyBase64: string;
  bodyTruncated: boolean;
  error: string | null;
  durationMs: number;
  /** Its bodies were dropped to keep the inspector within its bytes (kept-bytes.ts). */
  dropped?: true;
}

/** An answer as the inspector keeps it: as the history writes it, but its bodies as Buffers (kept-bytes.ts). */
interface Answer extends Omit<StoredAnswer, 'bodyBase64' | 'requestBodyBase64'> {
  body: Buffer;
  requestBody?: Buffer;
}

/** An entry line of the history: a delivery as it was then, whole. */
export interface ListenEntryLine {
  id: string;
  at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBase64: string;
  /** The body's size as it arrived, when `bodyBase64` holds less (a refused body, cut). */
  bodyBytes?: number;
  deliveryId: string | null;
  event: string | null;
  recordingId: string | null;
  title: string | null;
  verdict: string;
  status: number;
  explanation: string;
  /** The forward of the delivery, then each replay, oldest first. */
  exchanges: StoredAnswer[];
  /** The body was dropped to keep the inspector within its bytes (`bodyBytes` says its size). */
  bodyDropped?: true;
  /** How many of its oldest exchanges were dropped to keep the inspector within its bytes. */
  exchangesDropped?: number;
}

/** A delivery as the inspector keeps it: as its history line, but its bodies as Buffers (kept-bytes.ts). */
interface ListenEntry extends Omit<ListenEntryLine, 'bodyBase64' | 'exchanges'> {
  body: Buffer;
  exchanges: Answer[];
}

/**
 * A line of the history that adds a replay's exchange to the entry of its id, written when the
 * replay is made: a replay writes its own bytes, not its delivery again (history.ts).
 */
export interface ListenPart {
  id: string;
  exchange: StoredAnswer;
}

// Each line of the history is checked as its type says before it is believed: a hand edit or
// another program's line must not make every answer fail (`exchanges: [null]`) or break the ids
// (`"id": "Infinity"` would make each new delivery take the same id).
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string';
const isTextOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isStatusOrNull = (v: unknown): boolean => v === null || (isCount(v) && v >= 100 && v <= 999);
const isHeaders = (v: unknown): v is Record<string, string> => isRecord(v) && Object.values(v).every(isText);
const isBase64 = (v: unknown): v is string => isText(v) && /^[A-Za-z0-9+/]*={0,2}$/.test(v);
const isIso = (v: unknown): v is string => isText(v) && !Number.isNaN(Date.parse(v));
/** Ids are the numbers 1, 2, 3…: decimal, no sign, any the writer gives (a safe integer: ListenSource.open). */
const isEntryId = (v: unknown): v is string => isText(v) && /^[1-9][0-9]*$/.test(v) && Number.isSafeInteger(Number(v));

function isStoredAnswer(value: unknown): value is StoredAnswer {
  if (!isRecord(value)) return false;
  return (
    isText(value.label) &&
    isIso(value.at) &&
    isHeaders(value.requestHeaders) &&
    (value.requestBodyBase64 === undefined || isBase64(value.requestBodyBase64)) &&
    isStatusOrNull(value.status) &&
    isHeaders(value.headers) &&
    isBase64(value.bodyBase64) &&
    typeof value.bodyTruncated === 'boolean' &&
    isTextOrNull(value.error) &&
    typeof value.durationMs === 'number' &&
    Number.isFinite(value.durationMs) &&
    value.durationMs >= 0 &&
    (value.dropped === undefined || value.dropped === true)
  );
}

export function isListenEntry(value: unknown): value is ListenEntryLine {
  if (!isRecord(value)) return false;
  return (
    isEntryId(value.id) &&
    isIso(value.at) &&
    isText(value.method) &&
    isText(value.path) &&
    isHeaders(value.headers) &&
    isBase64(value.bodyBase64) &&
    (value.bodyBytes === undefined || isCount(value.bodyBytes)) &&
    isTextOrNull(value.deliveryId) &&
    isTextOrNull(value.event) &&
    isTextOrNull(value.recordingId) &&
    isTextOrNull(value.title) &&
    isText(value.verdict) &&
    isCount(value.status) &&
    isText(value.explanation) &&
    Array.isArray(value.exchanges) &&
    value.exchanges.every(isStoredAnswer) &&
    (value.bodyDropped === undefined || value.bodyDropped === true) &&
    (value.exchangesDropped === undefined || isCount(value.exchangesDropped))
  );
}

/** The newest MAX_ENTRIES verified deliveries and the newest MAX_REFUSED_ENTRIES refused ones, in order of arrival. */
function withinQuotas<E extends { verdict: string }>(entries: E[]): E[] {
  let verifiedLeft = MAX_ENTRIES;
  let refusedLeft = MAX_REFUSED_ENTRIES;
  const kept: E[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as E;
    if (VERIFIED.has(entry.verdict) ? verifiedLeft-- > 0 : refusedLeft-- > 0) kept.push(entry);
  }
  return kept.reverse();
}

export function isListenPart(value: unknown): value is ListenPart {
  return isRecord(value) && isEntryId(value.id) && isStoredAnswer(value.exchange) && Object.keys(value).length === 2;
}

/** Adds an exchange to an entry: its forward and the newest replays only (cli.md, Bounds). */
function addExchange<A extends { label: string }>(entry: { exchanges: A[] }, answer: A): void {
  entry.exchanges.push(answer);
  if (entry.exchanges.length > MAX_EXCHANGES) entry.exchanges.splice(entry.exchanges[0]?.label === FORWARD ? 1 : 0, 1);
}

/** How the history reads a replay's line back. */
const LISTEN_PARTS: HistoryParts<ListenEntryLine, ListenPart> = {
  isPart: isListenPart,
  addPart: (entry, part) => addExchange(entry, part.exchange),
};

/**
 * A Buffer of its own: a small one Node made from its pool shares an 8 KiB slab, and a piece of
 * a larger one holds all of it; kept for the run, either would hold more than its bytes.
 */
function own(bytes: Buffer): Buffer {
  if (bytes.length === 0) return NO_BODY;
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

const fromBase64 = (text: string): Buffer => own(Buffer.from(text, 'base64'));

function answerFromLine({ bodyBase64, requestBodyBase64, ...rest }: StoredAnswer): Answer {
  return {
    ...rest,
    body: fromBase64(bodyBase64),
    ...(requestBodyBase64 === undefined ? {} : { requestBody: fromBase64(requestBodyBase64) }),
  };
}

/**
 * Stands in a line's JSON for a body, written in its place as base64 (linePieces): random per
 * run, so that no text a sender chose (a header) can be taken for it.
 */
const BODY_MARK = `rfs-body-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}-`;
const BODY_MARKED = new RegExp(`${BODY_MARK}([0-9]+)`);

/**
 * A line of the history as pieces: its JSON with each body as a piece of its own, in base64.
 * A body as base64 (87 KB for 64 KiB) is a string V8 makes and drops in its young space; the
 * whole line (3.5 MB for a delivery with 20 replays) would go to its old space (history.ts).
 */
function linePieces(make: (base64: (bytes: Buffer) => string) => unknown): HistoryLine {
  const bodies: Buffer[] = [];
  const json = JSON.stringify(
    make((bytes) => {
      if (bytes.length === 0) return '';
      bodies.push(bytes);
      return `${BODY_MARK}${bodies.length - 1}`;
    }),
  );
  // split with a group: the text between marks at even places, each mark's number at odd ones.
  const parts = json.split(BODY_MARKED);
  let bytes = 1;
  parts.forEach((part, i) => {
    bytes += i % 2 === 0 ? Buffer.byteLength(part) : base64Length((bodies[Number(part)] as Buffer).length);
  });
  return {
    bytes,
    *pieces() {
      for (const [i, part] of parts.entries()) yield i % 2 === 0 ? part : (bodies[Number(part)] as Buffer).toString('base64');
      yield '\n';
    },
  };
}

function answerToLine({ body, requestBody, ...rest }: Answer, base64: (bytes: Buffer) => string): StoredAnswer {
  return {
    ...rest,
    bodyBase64: base64(body),
    ...(requestBody === undefined ? {} : { requestBodyBase64: base64(requestBody) }),
  };
}

function entryFromLine({ bodyBase64, exchanges, ...rest }: ListenEntryLine): ListenEntry {
  return { ...rest, body: fromBase64(bodyBase64), exchanges: exchanges.map(answerFromLine) };
}

function entryToLine({ body, exchanges, ...rest }: ListenEntry, base64: (bytes: Buffer) => string): ListenEntryLine {
  return { ...rest, bodyBase64: base64(body), exchanges: exchanges.map((e) => answerToLine(e, base64)) };
}

/** What the history writes of the inspector's record: its lines, the bodies as base64. */
interface ListenPartKept {
  id: string;
  exchange: Answer;
}

/** A text of the list, cut. */
function cut(text: string | null): string | null {
  return text === null || text.length <= MAX_LIST_TEXT ? text : `${text.slice(0, MAX_LIST_TEXT - 1)}…`;
}

/** The URL a delivery was sent to: the listener's own, with the request target it arrived at. */
function receivedAt(receiverUrl: string, path: string): string {
  // An absolute request target (`POST http://host/x`) is already a URL; a path joins the listener's.
  return path.startsWith('/') ? `${receiverUrl.replace(/\/+$/, '')}${path}` : path;
}

const verified = (entry: ListenEntry): boolean => VERIFIED.has(entry.verdict);

/**
 * Whether the kept body and signature verify under `secret`, whatever their age: a verdict the
 * history says is only what an earlier run saw, maybe under another secret (an old one, or a
 * tutorial's that anyone could sign with), and the listener re-signs only what it verified itself.
 */
function verifiesUnder(entry: ListenEntry, secret: string): boolean {
  if (entry.bodyDropped === true) return false;
  return verifySignature({
    secret,
    timestamp: entry.headers[SIGNATURE_HEADERS.timestamp],
    signature: entry.headers[SIGNATURE_HEADERS.signature],
    body: entry.body,
    toleranceSeconds: Number.POSITIVE_INFINITY,
    nowSeconds: 0,
  }).valid;
}

/** What the page and the API say of a verified delivery whose signature is not the current secret's. */
export const OTHER_SECRET =
  'verified under another secret (an earlier run of this history): replayed as sent only, never re-signed or edited, since the listener signs only what verifies under its secret now';

/**
 * What stands for the signature a refused delivery came with: that one was received and why it
 * failed (the verdict), never its value (cli.md, Trust: no signature of a body that did not
 * verify in any answer, page or file; a curl command or fixture made of it would carry one).
 */
export function signatureNotKept(verdict: string): string {
  return `[received, not kept: the delivery did not verify (${verdict})]`;
}

/**
 * What stands for a signature the listener made (a re-signed replay): when, never its value. The
 * app received it; an answer that carried it would hand anyone who can read the API a signature
 * of the body (cli.md, Trust).
 */
export function signatureMade(timestamp: string | undefined): string {
  const seconds = Number(timestamp);
  const when = timestamp !== undefined && /^[0-9]{1,10}$/.test(timestamp) ? new Date(seconds * 1000).toISOString() : 'an unknown time';
  return `[re-signed by the listener at ${when}: not kept]`;
}

/** The request headers of an exchange as kept: a signature the listener made, replaced (signatureMade). */
function withoutMadeSignature<E extends Pick<StoredAnswer, 'label' | 'requestHeaders'>>(e: E): E {
  const signature = e.requestHeaders[SIGNATURE_HEADERS.signature];
  if (e.label === FORWARD || e.label === AS_SENT || signature === undefined || signature.startsWith('[')) return e;
  return {
    ...e,
    requestHeaders: { ...e.requestHeaders, [SIGNATURE_HEADERS.signature]: signatureMade(e.requestHeaders[SIGNATURE_HEADERS.timestamp]) },
  };
}

/** Headers with a refused delivery's signature replaced by what says it came (signatureNotKept). */
function withoutSignature(headers: Record<string, string>, verdict: string): Record<string, string> {
  if (headers[SIGNATURE_HEADERS.signature] === undefined) return headers;
  return { ...headers, [SIGNATURE_HEADERS.signature]: signatureNotKept(verdict) };
}

/**
 * An entry as it may be kept: a refused body cut, list texts cut, no replay of a delivery that
 * did not verify (an older rfs made them; their signatures must not come back), and the
 * forward and the newest replays only. Applied to what arrives and to what is read back.
 */
function bounded(entry: ListenEntry): ListenEntry {
  let { body, bodyBytes, exchanges, headers } = entry;
  if (!verified(entry)) {
    headers = withoutSignature(headers, entry.verdict);
    if (body.length > MAX_REFUSED_BODY_BYTES) {
      bodyBytes = bodyBytes ?? body.length;
      body = own(body.subarray(0, MAX_REFUSED_BODY_BYTES));
    }
    exchanges = exchanges
      .filter((e) => e.label === FORWARD)
      .map((e) => ({ ...e, requestHeaders: withoutSignature(e.requestHeaders, entry.verdict) }));
  }
  // An older rfs kept the signatures it made: they do not come back.
  exchanges = exchanges.map(withoutMadeSignature);
  if (exchanges.length > MAX_EXCHANGES) {
    const forward = exchanges[0]?.label === FORWARD ? exchanges.slice(0, 1) : [];
    exchanges = [...forward, ...exchanges.slice(exchanges.length - (MAX_EXCHANGES - forward.length))];
  }
  return {
    ...entry,
    headers,
    body: own(body),
    ...(bodyBytes === undefined ? {} : { bodyBytes }),
    deliveryId: cut(entry.deliveryId),
    event: cut(entry.event),
    recordingId: cut(entry.recordingId),
    title: cut(entry.title),
    exchanges,
  };
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function stored(label: string, at: number, requestHeaders: Record<string, string>, result: SendResult): Answer {
  return {
    label,
    at: new Date(at).toISOString(),
    requestHeaders,
    status: result.status,
    headers: result.headers,
    body: own(result.body),
    bodyTruncated: result.bodyTruncated,
    error: result.error,
    durationMs: result.durationMs,
  };
}

/** How a replay was made: as it arrived, re-signed now, or with an edited body (re-signed). */
export type ReplayKind = 'as-sent' | 're-signed' | 'edited';

/** One replay made from the inspector, as the listener's output reports it (docs/inspector.md, Replays in the output). */
export interface ReplayReport {
  kind: ReplayKind;
  /** The inspector's id of the delivery. */
  id: string;
  deliveryId: string | null;
  event: string | null;
  recordingId: string | null;
  title: string | null;
  /** The app's answer; null when none came (`error` says why). */
  status: number | null;
  durationMs: number;
  error: string | null;
  at: number;
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
  /** The bytes kept in all (kept-bytes.ts); MAX_KEPT_BYTES unless a test says otherwise. */
  maxKeptBytes?: number;
  /** Told of each replay once the app answered (or did not): the listener prints a line for it. */
  onReplay?: (replay: ReplayReport) => void;
}

export class ListenSource implements InspectorSource {
  private readonly entries = new Map<string, ListenEntry>();
  private readonly listeners = new Set<(summary: DeliverySummary) => void>();
  private history: HistoryFile<ListenEntry, ListenPartKept> | undefined;
  private next = 1;
  /** Each entry's bytes as last measured (kept-bytes.ts), and their sum. */
  private readonly sizes = new Map<string, number>();
  private keptBytes = 0;
  /** Whether each entry verifies under the secret (ListenSource.resignable). */
  private readonly underSecret = new WeakMap<ListenEntry, { secret: string; ok: boolean }>();
  /** Lines of the history that could not be read back. */
  damaged = 0;
  /** Where a history that held no delivery that could be read back was moved: the listener starts a new one. */
  setAsideAs: string | undefined;

  private constructor(private readonly o: ListenSourceOptions) {}

  /** The history read back, then kept: a restart lists the same deliveries. A HistoryPathError for a path that is not a regular file. */
  static async open(o: ListenSourceOptions): Promise<ListenSource> {
    const source = new ListenSource(o);
    if (o.historyFile !== undefined) {
      const read = await readHistory(o.historyFile, isListenEntry, LISTEN_PARTS, withinQuotas);
      source.damaged = read.damaged;
      if (read.unreadable) {
        // Not one delivery could be read back (a file damaged in its tail: zeros, a cut): it is kept
        // aside, as core/state-file.ts keeps a state file rfs cannot read, never written over.
        const file = o.historyFile;
        try {
          source.setAsideAs = setAside(file, o.now());
        } catch (error) {
          throw new HistoryPathError(
            `the history ${file} holds no delivery rfs can read, and could not be set aside: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      let entries = read.entries.map((line) => bounded(entryFromLine(line)));
      // The next id must be one a restart reads back: past the safe integers, the entries are numbered anew.
      if (entries.some((entry) => Number(entry.id) >= Number.MAX_SAFE_INTEGER - MAX_ENTRIES))
        entries = entries.map((entry, i) => ({ ...entry, id: String(i + 1) }));
      for (const entry of entries) {
        source.entries.set(entry.id, entry);
        source.next = Math.max(source.next, Number(entry.id) + 1);
      }
      for (const entry of entries) source.measure(entry);
      source.fit(false);
      source.history = new HistoryFile<ListenEntry, ListenPartKept>(o.historyFile, [...source.entries.values()], {
        onError: o.onHistoryError,
        maxEntries: MAX_ENTRIES + MAX_REFUSED_ENTRIES,
        sizeOf: entryBytes,
        entryLine: (entry) => linePieces((base64) => entryToLine(entry, base64)),
        partLine: ({ id, exchange }) => linePieces((base64): ListenPart => ({ id, exchange: answerToLine(exchange, base64) })),
        // A shallow copy: the bodies are shared, not copied; a replay made while a rewrite runs is in its part line only.
        snapshot: (entry) => ({ ...entry, exchanges: [...entry.exchanges] }),
      });
      // Its first write: a path that reads as a file but takes no file beside it (/proc/<pid>/environ)
      // is refused as a path is, not reported as a bug.
      const file = o.historyFile;
      await source.history.start().catch((error: unknown) => {
        throw new HistoryPathError(`the history ${file} cannot be written: ${error instanceof Error ? error.message : String(error)}`);
      });
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
      maxDeliveries: MAX_ENTRIES,
    };
  }

  /** A delivery the receiver reported, with the verdict the listener printed for it. */
  add(delivery: ReceivedDelivery, raw: ReceivedRaw, verdict: string, at: number): void {
    const headers = flatHeaders(raw.headers);
    const entry = bounded({
      id: String(this.next++),
      at: new Date(at).toISOString(),
      method: raw.method,
      path: raw.path,
      headers,
      body: raw.body,
      deliveryId: delivery.deliveryId,
      event: delivery.event,
      recordingId: delivery.recordingId,
      title: delivery.title,
      verdict,
      status: delivery.status,
      explanation: delivery.explanation,
      exchanges: delivery.forwarded === undefined ? [] : [stored(FORWARD, at, forwardedHeaders(raw.headers), delivery.forwarded)],
    });
    this.entries.set(entry.id, entry);
    // The newest of its kind in memory, as read back (withinQuotas): a refused one only ever
    // pushes out a refused one.
    const kind = verified(entry);
    const quota = kind ? MAX_ENTRIES : MAX_REFUSED_ENTRIES;
    if (this.count(kind) > quota) {
      for (const [id, old] of this.entries)
        if (verified(old) === kind) {
          this.drop(id);
          this.history?.evict(id);
          break;
        }
    }
    this.measure(entry);
    this.history?.append(entry);
    this.tell(entry);
    this.fit(true);
  }

  /** The bytes the inspector holds now: its deliveries' bodies, answers and headers, as the history writes them. */
  get bytes(): number {
    return this.keptBytes;
  }

  private count(kind: boolean): number {
    let n = 0;
    for (const entry of this.entries.values()) if (verified(entry) === kind) n++;
    return n;
  }

  private measure(entry: ListenEntry): void {
    const size = entryBytes(entry);
    this.keptBytes += size - (this.sizes.get(entry.id) ?? 0);
    this.sizes.set(entry.id, size);
  }

  private drop(id: string): void {
    this.entries.delete(id);
    this.keptBytes -= this.sizes.get(id) ?? 0;
    this.sizes.delete(id);
  }

  /**
   * Within the bytes bound (kept-bytes.ts): what a trim changed is told again (with `tell`), not
   * written: a restart trims what it reads back the same way, and only a delivery dropped whole
   * makes the history write itself anew without it.
   */
  private fit(tell: boolean): void {
    const limit = this.o.maxKeptBytes ?? MAX_KEPT_BYTES;
    if (this.keptBytes <= limit) return;
    const trim = trimToBudget([...this.entries.values()], this.keptBytes, limit);
    for (const entry of trim.removed) {
      this.drop(entry.id);
      this.history?.forget(entry.id);
    }
    for (const entry of trim.changed) {
      this.measure(entry);
      if (tell) this.tell(entry);
    }
  }

  list(): DeliverySummary[] {
    return [...this.entries.values()].reverse().map((entry) => this.summary(entry));
  }

  detail(id: string): DeliveryDetail | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const body = entry.body;
    const otherSecret = verified(entry) && entry.bodyDropped !== true && !this.resignable(entry);
    return {
      ...this.summary(entry),
      explanation: otherSecret ? `${entry.explanation}; ${OTHER_SECRET}` : entry.explanation,
      request: {
        method: entry.method,
        path: entry.path,
        headers: entry.headers,
        body: body.toString('utf8'),
        bodyBytes: entry.bodyBytes ?? body.length,
        bodyTruncated: entry.bodyBytes !== undefined && entry.bodyBytes > body.length,
        bodyDropped: entry.bodyDropped === true,
      },
      exchanges: entry.exchanges.map((e) => exchange(e, this.o.forwardTo ?? null)),
      exchangesDropped: entry.exchangesDropped ?? 0,
    };
  }

  body(id: string): Buffer | undefined {
    const entry = this.entries.get(id);
    if (entry?.bodyDropped)
      throw new InspectorError(409, `the body of delivery ${id} was dropped to keep the inspector within its memory bound`);
    return entry?.body;
  }

  curlTarget(): string {
    return this.o.forwardTo ?? this.o.receiverUrl;
  }

  /**
   * Sends the delivery again to --forward-to: as it was sent, re-signed now, or (`edited`) with
   * another body, re-signed. Only a delivery that verified: the listener never signs, nor
   * passes on, a body that anyone on the machine (or any web page) could have POSTed.
   */
  async replay(id: string, resign: boolean, edited?: Buffer): Promise<Exchange> {
    const entry = this.entries.get(id);
    if (entry === undefined) throw new InspectorError(404, `no delivery ${id}`);
    if (this.o.forward === undefined) throw new InspectorError(409, 'replay sends a delivery to --forward-to: start listen with it');
    // Stale: the HMAC matched, but the timestamp is outside the tolerance. Not replayed either
    // (cli.md, Trust: valid and duplicate only): a stale body may be an old delivery that someone
    // captured and sends again, and a re-signed replay would pass it to the app as new.
    if (entry.verdict === 'stale')
      throw new InspectorError(
        409,
        `delivery ${id} is stale: signed with the right secret, but its timestamp is outside the tolerance, so it is kept as received only (not replayed or re-signed: a stale body may be an old delivery captured and sent again by someone else)`,
      );
    if (!verified(entry))
      throw new InspectorError(
        409,
        `delivery ${id} did not verify (${entry.verdict}): only a delivery that verified is replayed or re-signed, so that the listener never signs what anyone could POST to it`,
      );
    if (entry.bodyDropped)
      throw new InspectorError(
        409,
        `the body of delivery ${id} was dropped to keep the inspector within its memory bound: it is not replayed`,
      );
    if (resign && !this.resignable(entry)) throw new InspectorError(409, `delivery ${id} was ${OTHER_SECRET}`);
    if (edited !== undefined && !resign)
      throw new InspectorError(400, 'an edited body is sent re-signed only: {"resign": true, "body": …}');
    if (edited !== undefined && edited.length > MAX_EDITED_BODY_BYTES)
      throw new InspectorError(413, `an edited body is at most ${MAX_EDITED_BODY_BYTES} bytes`);
    const body = edited ?? entry.body;
    const headers = forwardedHeaders(entry.headers);
    if (resign) {
      // A fresh timestamp and its signature, so that the target's tolerance does not call it stale.
      const timestamp = Math.floor(this.o.now() / 1000);
      headers[SIGNATURE_HEADERS.timestamp] = String(timestamp);
      headers[SIGNATURE_HEADERS.signature] = sign(this.o.secret(), timestamp, body);
    }
    const at = this.o.now();
    const result = await this.o.forward(headers, body);
    const label = edited !== undefined ? 'replay edited, re-signed' : resign ? 'replay re-signed' : AS_SENT;
    // The signature made here went to the app only: what is kept, answered and told says when, not what.
    const answer = withoutMadeSignature(stored(label, at, headers, result));
    if (edited !== undefined) answer.requestBody = own(edited);
    this.o.onReplay?.({
      kind: edited !== undefined ? 'edited' : resign ? 're-signed' : 'as-sent',
      id,
      deliveryId: entry.deliveryId,
      event: entry.event,
      recordingId: entry.recordingId,
      title: entry.title,
      status: result.status,
      durationMs: result.durationMs,
      error: result.error,
      at,
    });
    addExchange(entry, answer);
    // A delivery dropped meanwhile (past the newest MAX_ENTRIES) is not brought back.
    if (this.entries.get(id) === entry) {
      this.measure(entry);
      this.history?.appendPart({ id, exchange: answer });
      this.tell(entry);
      this.fit(true);
    }
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

  /** A delivery that verified, and verifies under the secret the listener has now (cached per entry and secret). */
  private resignable(entry: ListenEntry): boolean {
    if (!verified(entry) || entry.bodyDropped === true) return false;
    const secret = this.o.secret();
    const known = this.underSecret.get(entry);
    if (known !== undefined && known.secret === secret) return known.ok;
    const ok = verifiesUnder(entry, secret);
    this.underSecret.set(entry, { secret, ok });
    return ok;
  }

  /** Tells the event stream's clients the entry's row as it is now. */
  private tell(entry: ListenEntry): void {
    const row = this.summary(entry);
    for (const listener of this.listeners) listener(row);
  }

  private summary(entry: ListenEntry): DeliverySummary {
    const forward = entry.exchanges[0]?.label === FORWARD ? entry.exchanges[0] : undefined;
    const last = entry.exchanges.at(-1);
    const replay = last === undefined || last === forward ? undefined : last;
    return {
      id: entry.id,
      at: entry.at,
      event: entry.event,
      deliveryId: entry.deliveryId,
      recordingId: entry.recordingId,
      title: entry.title,
      url: cut(receivedAt(this.o.receiverUrl, entry.path)),
      verdict: entry.verdict,
      status: entry.status,
      target: forward === undefined ? null : { status: forward.status, durationMs: forward.durationMs, error: forward.error },
      replay:
        replay === undefined ? null : { label: replay.label, status: replay.status, durationMs: replay.durationMs, error: replay.error },
      replayable: this.o.forward !== undefined && verified(entry) && entry.bodyDropped !== true,
      resignable: this.o.forward !== undefined && this.resignable(entry),
      verified: verified(entry),
    };
  }
}

function exchange(e: Answer, url: string | null): Exchange {
  return {
    label: e.label,
    at: e.at,
    url,
    request: {
      headers: e.requestHeaders,
      body: e.requestBody === undefined ? null : e.requestBody.toString('utf8'),
    },
    response: {
      status: e.status,
      headers: e.headers,
      body: e.body.toString('utf8'),
      bodyTruncated: e.bodyTruncated,
      error: e.error,
      durationMs: e.durationMs,
    },
    dropped: e.dropped === true,
  };
}
