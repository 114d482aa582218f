// The inspector's server (cli.md, webhooks listen --inspect; sandbox.md, Inspecting it;
// style.md, "A local web page is a client of its own JSON API"): the page's three files, a JSON
// API and a Server-Sent Events stream, on loopback, behind the control API's Host and Origin
// rule (core/local-guard.ts). Thin: what the page does, a script does with curl.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mapStrings } from '../core/redact.js';
import { localGuard } from '../core/local-guard.js';
import { listenOn, urlHost } from '../core/listen.js';
import { type AssetName, readAssets } from './assets.js';
import type { DeliverySummary } from './model.js';
import { InspectorError, type InspectorSource } from './source.js';
import { curlCommand } from './curl.js';

// As in src/webhooks/receiver.ts: an ES module import of node:http loads Node's own undici on Node 22+.
const { createServer } = process.getBuiltinModule('node:http');

/** A replay request's body is a few bytes: `{"resign": true}`. */
export const MAX_REQUEST_BYTES = 16 * 1024;
/** An edited replay's request: the edited body (at most 64 KiB) as a JSON string, escapes and all. */
const MAX_EDIT_REQUEST_BYTES = 512 * 1024;
/** Event-stream clients at once; one more is told 503 (cli.md, Bounds). */
export const MAX_STREAMS = 32;
/** What a stream client may leave unread before it is dropped. */
export const MAX_STREAM_BACKLOG = 256 * 1024;
/** Events kept for a client that reconnects with Last-Event-ID. */
const KEPT_EVENTS = 1000;
/**
 * Replays in flight at once, all deliveries together (cli.md, Bounds): each holds a request to
 * --forward-to open, which a slow target keeps; one more is told 429. One per delivery, too (409).
 */
export const MAX_REPLAYS_IN_FLIGHT = 8;
/** One-time codes not used yet, at most: a new one past it ends the oldest. */
const MAX_LIVE_CODES = 16;

// The secrets of this run (the listener's webhook secret, an API key it holds) never reach the
// page, wherever they appear (InspectorServerOptions.redact, on every string of each answer). Text
// that only looks like a secret is what the sender sent, and goes as it came (style.md: redact
// what is the secret, not what looks like it): a body byte for byte.

const TYPES: Record<AssetName, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

// The page's own files and API only: no inline script, no other origin, no framing.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface InspectorServerOptions {
  /** `host:port` as --inspect took it. */
  host: string;
  port: number;
  source: InspectorSource;
  /** The folder of the page's files (assets.ts). */
  assets: string;
  /** Takes this run's secrets, and only them, out of a text (core/redact-stream.ts, StdoutSecrets). */
  redact: (text: string) => string;
}

export interface RunningInspector {
  /** The inspector's root, for scripts (`<url>api/deliveries`). */
  url: string;
  /**
   * The address to open, printed at start: the root with a one-time code after `#`, which the
   * page swaps at once (POST /api/session) for this run's cookie (HttpOnly). Re-signing needs
   * that cookie: the JSON API is open to every local user (cli.md: "by the person at the page"),
   * and an address a browser was started with is on its command line, which every local user can
   * read, so the code in it is dead once the page has used it.
   */
  pageUrl: string;
  /** Another one-time address, for another browser (the listener prints it on SIGUSR2). */
  freshPageUrl(): string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...PAGE_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...extra });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`, extra);
}

/** How much of a refused request is read and thrown away, so that its client reads the 413 rather than a reset. */
const DRAIN_LIMIT = 1024 * 1024;

/** A request body over its bound: answered 413 once the rest is read (up to DRAIN_LIMIT), then the connection closes. */
class TooLarge extends InspectorError {}

/** Too many replays in flight: answered 429 with Retry-After. */
class Busy extends InspectorError {}

function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const tooLarge = () => new TooLarge(413, `the request body is larger than ${limit} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (!over) chunks.push(chunk);
      else if (size > DRAIN_LIMIT) {
        // Past what is worth reading: answered now, the connection closed after the answer.
        req.pause();
        reject(tooLarge());
      }
    });
    req.on('end', () => {
      if (over) return reject(tooLarge());
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text.trim() === '' ? {} : JSON.parse(text));
      } catch {
        reject(new InspectorError(400, 'the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/** The path's segments, decoded; undefined for a malformed escape (`%ZZ`). */
function segments(pathname: string): string[] | undefined {
  try {
    return pathname
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/** `{"resign": bool}`, and with `body` (a string) an edited replay, which is re-signed. */
function replayRequest(input: unknown): { resign: boolean; edited: Buffer | undefined } {
  const fail = () => new InspectorError(400, 'expected {"resign": true | false} or {"resign": true, "body": "<edited body>"}');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw fail();
  const { resign, body } = input as { resign?: unknown; body?: unknown };
  if (resign !== undefined && typeof resign !== 'boolean') throw fail();
  if (body !== undefined && typeof body !== 'string') throw fail();
  return { resign: resign === true, edited: body === undefined ? undefined : Buffer.from(body, 'utf8') };
}

/** Two secrets compared in constant time. */
function same(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie of a Cookie header; undefined without it. */
function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Where the page got a code the server does not take: a used one, or one of another run. */
const NO_CODE =
  'this address was used already (each address rfs prints opens the inspector once) or is not of this run: ask rfs for a fresh one (kill -USR2 <its pid>, see docs/inspector.md)';
/** What a re-sign (or an edited replay) without the page's cookie is told. */
const NO_SESSION =
  'a delivery is re-signed only from the page opened at an address rfs printed (it works once; kill -USR2 <rfs pid> prints a fresh one): open one';

export async function startInspector(o: InspectorServerOptions): Promise<RunningInspector> {
  const files = await readAssets(o.assets);
  const guard = localGuard(o.host, 'the inspector');
  const scrubValue = (value: unknown): unknown => mapStrings(value, o.redact);
  // Every JSON answer without this run's secrets (the helper above writes what it is given).
  const json = (res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void =>
    sendJson(res, status, scrubValue(value), extra);
  /** A body as it came, unless it holds a secret of this run: then none (a changed body would not be the body). */
  const exported = (id: string, body: Buffer): Buffer => {
    const text = body.toString('latin1');
    if (o.redact(text) !== text)
      throw new InspectorError(
        409,
        `the body of delivery ${id} holds a secret of this run (the webhook secret or an API key): it is not sent to the page`,
      );
    return body;
  };
  const streams = new Set<ServerResponse>();
  // The event stream: each event numbered (`id:`), the newest KEPT_EVENTS kept for a client that
  // reconnects with Last-Event-ID. The run's own prefix tells an id of an earlier run (or one
  // too old to be kept): that client is told to load the list again (`event: reload`).
  const run = randomBytes(4).toString('hex');
  // This run's session (the cookie's value) and its live one-time codes (RunningInspector.pageUrl).
  const session = randomBytes(32).toString('base64url');
  const codes: string[] = [];
  const freshCode = (): string => {
    const code = randomBytes(18).toString('base64url');
    codes.push(code);
    if (codes.length > MAX_LIVE_CODES) codes.shift();
    return code;
  };
  // Named for the port: a browser keeps cookies per host, not per port, and two inspectors must not overwrite each other's.
  let cookieName = 'rfs-inspector';
  const hasSession = (req: IncomingMessage): boolean => {
    const given = cookie(req.headers.cookie, cookieName);
    return given !== undefined && same(given, session);
  };
  // The replays in flight, by delivery (MAX_REPLAYS_IN_FLIGHT), whoever asks: the page or a script.
  const replaying = new Set<string>();
  const replay = async (id: string, resign: boolean, edited?: Buffer) => {
    if (replaying.has(id)) throw new InspectorError(409, `a replay of delivery ${id} is in flight: wait for its answer`);
    if (replaying.size >= MAX_REPLAYS_IN_FLIGHT)
      throw new Busy(429, `${MAX_REPLAYS_IN_FLIGHT} replays are in flight (the target is slow to answer): try again when one has ended`);
    replaying.add(id);
    try {
      return await o.source.replay(id, resign, edited);
    } finally {
      replaying.delete(id);
    }
  };
  let seq = 0;
  const kept: { seq: number; text: string }[] = [];
  const write = (res: ServerResponse, text: string): void => {
    if (res.destroyed) return;
    res.write(text);
    // A client that does not read is dropped, not buffered for (cli.md, Bounds).
    if (res.writableLength > MAX_STREAM_BACKLOG) res.destroy();
  };
  const stopSource = o.source.subscribe((summary: DeliverySummary) => {
    seq++;
    const text = `id: ${run}-${seq}\nevent: delivery\ndata: ${JSON.stringify(scrubValue(summary))}\n\n`;
    kept.push({ seq, text });
    if (kept.length > KEPT_EVENTS) kept.shift();
    for (const res of streams) write(res, text);
  });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0';
    const refusal = guard(method, req.headers, hasBody || req.headers['transfer-encoding'] !== undefined);
    if (refusal !== null) {
      json(res, refusal.kind === 'content-type' ? 415 : 403, { error: refusal.detail });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://inspector.invalid');
    const parts = segments(url.pathname);
    if (parts === undefined) return json(res, 400, { error: 'the path has a malformed %-escape' });
    const get = method === 'GET' || method === 'HEAD';
    if (get && (url.pathname === '/' || url.pathname === '/index.html')) return send(res, 200, TYPES['index.html'], files['index.html']);
    if (get && (url.pathname === '/app.js' || url.pathname === '/app.css')) {
      const name = url.pathname.slice(1) as AssetName;
      return send(res, 200, TYPES[name], files[name]);
    }
    if (get && url.pathname === '/favicon.ico') {
      res.writeHead(204, PAGE_HEADERS).end();
      return;
    }
    if (parts[0] !== 'api') return json(res, 404, { error: 'no such page' });
    const [, what, id, action] = parts;
    if (get && what === 'info' && parts.length === 2) return json(res, 200, { data: o.source.info() });
    if (method === 'POST' && what === 'session' && parts.length === 2) {
      // The page swaps the code of its address for the cookie, once: a second use is refused.
      const input = await readJson(req, MAX_REQUEST_BYTES);
      const code = typeof input === 'object' && input !== null ? (input as { code?: unknown }).code : undefined;
      const at = typeof code === 'string' ? codes.findIndex((live) => same(code, live)) : -1;
      if (at < 0) return json(res, 403, { error: NO_CODE });
      codes.splice(at, 1);
      res.writeHead(204, { ...PAGE_HEADERS, 'set-cookie': `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/` }).end();
      return;
    }
    if (get && what === 'events' && parts.length === 2) return events(req, res);
    if (get && what === 'requests' && parts.length === 2) {
      if (o.source.requests === undefined) return json(res, 404, { error: 'no request log here: only rfs sandbox --inspect has one' });
      return json(res, 200, { data: o.source.requests(Number(url.searchParams.get('since') ?? 0) || 0) });
    }
    if (what !== 'deliveries') return json(res, 404, { error: 'no such endpoint' });
    if (get && id === undefined) return json(res, 200, { data: o.source.list() });
    if (id === undefined) return json(res, 405, { error: 'GET /api/deliveries lists them' });
    if (get && action === undefined) {
      const detail = o.source.detail(id);
      return detail === undefined ? json(res, 404, { error: `no delivery ${id}` }) : json(res, 200, { data: detail });
    }
    if (get && (action === 'body' || action === 'curl') && parts.length === 4) {
      const detail = o.source.detail(id);
      const body = o.source.body(id);
      if (detail === undefined || body === undefined) return json(res, 404, { error: `no delivery ${id}` });
      if (action === 'curl') {
        // A command that sends the body with its signature: a refused delivery keeps none (cli.md, Trust).
        if (!detail.verified)
          throw new InspectorError(
            409,
            `delivery ${id} did not verify (${detail.verdict}): it has no curl command, since the listener keeps no signature of a body that did not verify; download its body as a fixture and sign it yourself (rfs webhooks sign --payload)`,
          );
        const target = o.source.curlTarget(id) ?? '';
        const headers = mapStrings(detail.request.headers, o.redact) as Record<string, string>;
        return send(res, 200, 'text/plain; charset=utf-8', curlCommand(o.redact(target), headers, exported(id, body)));
      }
      // A fixture for `rfs webhooks trigger --payload`: the body's bytes, as a download.
      const name = `${(detail.deliveryId ?? `delivery-${id}`).replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
      return send(res, 200, 'application/json', exported(id, body), { 'content-disposition': `attachment; filename="${name}"` });
    }
    if (method === 'POST' && action === 'replay' && parts.length === 4) {
      const { resign, edited } = replayRequest(await readJson(req, MAX_REQUEST_BYTES));
      if (edited !== undefined) throw new InspectorError(400, 'an edited body goes to POST /api/deliveries/<id>/replay-edited');
      // A fresh signature of a verified body is the person at the page's to ask for, as an edit is (cli.md, Trust).
      if (resign && !hasSession(req)) throw new InspectorError(403, NO_SESSION);
      return json(res, 200, { data: await replay(id, resign) });
    }
    if (method === 'POST' && action === 'replay-edited' && parts.length === 4) {
      if (!hasSession(req)) throw new InspectorError(403, NO_SESSION);
      const { edited } = replayRequest(await readJson(req, MAX_EDIT_REQUEST_BYTES));
      if (edited === undefined) throw new InspectorError(400, 'expected {"body": "<edited body>"}');
      return json(res, 200, { data: await replay(id, true, edited) });
    }
    return json(res, 404, { error: 'no such endpoint' });
  };

  const events = (req: IncomingMessage, res: ServerResponse): void => {
    if (streams.size >= MAX_STREAMS) {
      json(res, 503, { error: `${MAX_STREAMS} event streams are open: close a page of the inspector` }, { 'retry-after': '5' });
      return;
    }
    res.writeHead(200, { ...PAGE_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    streams.add(res);
    write(res, 'retry: 1000\n\n');
    const last = req.headers['last-event-id'];
    if (typeof last === 'string' && last !== '') {
      const [lastRun, lastSeq] = last.split('-');
      const n = Number(lastSeq);
      const oldest = kept[0]?.seq ?? seq + 1;
      if (lastRun === run && Number.isSafeInteger(n) && n <= seq && n >= oldest - 1) {
        for (const event of kept) if (event.seq > n) write(res, event.text);
      } else {
        write(res, `id: ${run}-${seq}\nevent: reload\ndata: {}\n\n`);
      }
    }
    const beat = setInterval(() => write(res, ': still here\n\n'), 15_000);
    beat.unref();
    res.on('close', () => {
      clearInterval(beat);
      streams.delete(res);
    });
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof TooLarge) {
        json(res, error.status, { error: error.message }, { connection: 'close' });
        res.on('finish', () => req.socket.destroySoon());
      } else if (error instanceof Busy) json(res, error.status, { error: error.message }, { 'retry-after': '1' });
      else if (error instanceof InspectorError) json(res, error.status, { error: error.message });
      else json(res, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  const bound: AddressInfo = await listenOn(server, o.host, o.port);
  cookieName = `rfs-inspector-${bound.port}`;
  const root = `http://${urlHost(o.host, bound.address)}:${bound.port}/`;
  return {
    url: root,
    pageUrl: `${root}#${freshCode()}`,
    freshPageUrl: () => `${root}#${freshCode()}`,
    close: () =>
      new Promise<void>((resolve) => {
        stopSource();
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
