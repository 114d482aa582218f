// A local webhook receiver (cli.md, `rfs webhooks listen`; also `rfs sync --listen`): every POST
// is verified with the verdict of verify-signature over the raw body bytes, answered 200 (or the
// status of the --forward-to target) when valid and 401 when not, and reported to the caller.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../core/errors.js';
import { boundUrl, isWildcardAddress, ListenError, listenOn, urlHost } from '../core/listen.js';
import { checkDestination } from '../core/loopback.js';
import { MAX_DELIVERY_BYTES } from '../shared/delivery.js';
import { SIGNATURE_HEADERS } from '../shared/schemas.js';
import { type DeliverySender, openDeliverySender, type SendResult } from './send.js';
import { verdict } from './verify.js';

// As in src/api/problem.ts: an ES module import of node:http loads Node's own undici on Node 22+.
const { createServer } = process.getBuiltinModule('node:http');

export interface ReceivedDelivery {
  /** x-service-delivery */
  deliveryId: string | null;
  /** x-service-event */
  event: string | null;
  /** data.id of the payload, when the body parses. */
  recordingId: string | null;
  /** data.title of the payload, when the body parses. */
  title: string | null;
  valid: boolean;
  reason: 'mismatch' | 'stale' | 'malformed' | 'missing' | null;
  /** From verdict(); never the expected signature. */
  explanation: string;
  ageSeconds: number | null;
  /** What the receiver answered. */
  status: number;
  /** Why --forward-to failed (the answer was then 502). */
  forwardError?: string;
  /** With --forward-to, what the target answered (or why it did not): status, headers, body, duration. */
  forwarded?: SendResult;
}

/** A delivery's request as it arrived. */
export interface ReceivedRaw {
  method: string;
  /** The request target (path and query). */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request refused before any signature was checked: not a POST (405), too large (413), or one too many at once (503). */
export interface RefusedRequest {
  method: string;
  status: 405 | 413 | 503;
  message: string;
}

/**
 * What the receiver holds at once, and for how long (docs/webhooks.md, the receiver's bounds):
 * anyone on the machine, and any web page, can POST to it, and a body that never ends must not
 * hold memory for ever. Deliveries are at most MAX_BODY_BYTES each.
 */
export interface ReceiverLimits {
  /** POSTs in flight at once (their body being read, or forwarded); one more is told 503. */
  maxInFlight: number;
  /** The whole request, headers and body, must have arrived within this (else 408, connection closed). */
  requestTimeoutMs: number;
  /** The headers must have arrived within this. */
  headersTimeoutMs: number;
}

/**
 * 32 at once (at most 32 MiB of bodies held); a request must arrive within 30 s, its headers
 * within 10 s: a webhook sender waits about as long for the whole answer (Stripe 30 s, GitHub
 * 10 s) and sends its body at once, so a delivery slower than that has been given up already.
 */
export const RECEIVER_LIMITS: ReceiverLimits = { maxInFlight: 32, requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 };
/** Retry-After of a 503 (one too many at once), in seconds. */
const BUSY_RETRY_SECONDS = 1;

export interface ReceiverOptions {
  host: string;
  /** 0 picks any free port. */
  port: number;
  /** The secret, or where to read it at each delivery (listen --subscribe learns it after binding). */
  secret: string | (() => string);
  toleranceSeconds: number;
  /** A loopback http(s) URL that valid deliveries are passed on to (see forwardTarget). */
  forwardTo?: string;
  /** Milliseconds since the epoch; injectable. */
  now?: () => number;
  onDelivery: (delivery: ReceivedDelivery, raw: ReceivedRaw) => void;
  /** Told of requests refused before verification; they are not deliveries. */
  onRefused?: (request: RefusedRequest) => void;
  /** Whether the listener is ready (GET /healthz answers 200, else 503); always, without it. */
  ready?: () => boolean;
  /** RECEIVER_LIMITS unless a test says otherwise. */
  limits?: Partial<ReceiverLimits>;
}

/** cli.md, webhooks listen: `GET /healthz`, 200 once the listener accepts deliveries, so CI can wait for it. */
const HEALTH_PATH = '/healthz';

export interface RunningReceiver {
  /** The URL a client on this machine uses (a wildcard bind is reached through loopback). */
  url: string;
  /** The address really bound, when it is every interface (`http://0.0.0.0:…`): else undefined. */
  wildcardUrl: string | undefined;
  port: number;
  /**
   * With --forward-to: sends a delivery's body with `headers` (as forwardedHeaders picks them)
   * to the target once more, for the inspector's replay; undefined without --forward-to.
   */
  forward: ((headers: Record<string, string>, body: Buffer) => Promise<SendResult>) | undefined;
  close(): Promise<void>;
}

// The receiver's cap is a delivery's (shared/delivery.ts).
export const MAX_BODY_BYTES = MAX_DELIVERY_BYTES;

/**
 * The --forward-to value checked: an absolute http(s) URL to a loopback host, since the raw
 * payload and its valid signature go there. A UsageError (exit 2) otherwise.
 */
export function forwardTarget(value: string): string {
  return checkDestination(value, {
    name: '--forward-to',
    example: 'http://127.0.0.1:3000/webhooks',
    loopbackOnly: 'deliveries are forwarded only to this machine',
  }).href;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  // Node joins repeated unknown headers with ", "; two signatures then read as malformed.
  return Array.isArray(value) ? value.join(', ') : value;
}

function payloadFields(body: Buffer): { recordingId: string | null; title: string | null } {
  try {
    const data = (JSON.parse(body.toString('utf8')) as { data?: unknown } | null)?.data;
    if (typeof data !== 'object' || data === null) return { recordingId: null, title: null };
    const { id, title } = data as { id?: unknown; title?: unknown };
    return { recordingId: typeof id === 'string' ? id : null, title: typeof title === 'string' ? title : null };
  } catch {
    return { recordingId: null, title: null };
  }
}

/** The body, or null when it is larger than the cap (the rest is then left unread). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    // After 'end' or the cap this changes nothing; before them, the sender went away mid-body.
    req.on('close', () => reject(new Error('the request was cut off before its body ended')));
  });
}

/** How long, and how much, of a refused body is read and thrown away before the answer. */
const DISCARD_MS = 10_000;
const DISCARD_BYTES = 256 * 1024 * 1024;

/**
 * Before a 413 is sent, the rest of the body is read and thrown away (never kept): a sender that
 * writes its whole body before reading the answer (Node's http, fetch) would otherwise have its
 * connection reset under it and never see the 413. Bounded, so a body that
 * never ends costs at most DISCARD_MS and DISCARD_BYTES of reading: `false` then, and the
 * connection is closed after the answer.
 */
function discardRest(req: IncomingMessage): Promise<boolean> {
  return new Promise((resolve) => {
    let discarded = 0;
    const done = (ended: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > DISCARD_BYTES) done(false);
    };
    const timer = setTimeout(() => done(false), DISCARD_MS);
    timer.unref();
    req.on('data', onData);
    req.once('end', () => done(true));
    req.once('close', () => done(false));
    req.resume();
  });
}

function answer(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra });
  res.end(`${text}\n`);
}

/** The signature headers and content type, exactly as received: the target verifies them again. */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name.startsWith('x-service-') || name === 'content-type') out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const STOPPED: SendResult = {
  status: null,
  error: 'the receiver was stopped',
  durationMs: 0,
  headers: {},
  body: Buffer.alloc(0),
  bodyTruncated: false,
};

export async function startWebhookReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const now = options.now ?? Date.now;
  const closing = new AbortController();
  const forwarding: DeliverySender | undefined =
    options.forwardTo === undefined ? undefined : await openDeliverySender(new URL(forwardTarget(options.forwardTo)));

  const limits = { ...RECEIVER_LIMITS, ...options.limits };
  let inFlight = 0;
  /** A 503 was reported since the receiver was last below its cap: a flood is one line, not one a request. */
  let busyTold = false;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? '';
    if ((method === 'GET' || method === 'HEAD') && (req.url ?? '').split('?')[0] === HEALTH_PATH) {
      const ready = options.ready?.() ?? true;
      answer(res, ready ? 200 : 503, ready ? 'ok: accepting deliveries' : 'starting: not accepting deliveries yet');
      return;
    }
    if (method !== 'POST') {
      answer(res, 405, 'method not allowed: deliveries are POST requests', { allow: 'POST' });
      options.onRefused?.({ method, status: 405, message: `${method} is not a delivery (only POST is)` });
      return;
    }
    if (inFlight >= limits.maxInFlight) {
      // Nothing of its body is read or kept: told to come back, and the connection closed.
      answer(res, 503, `busy: ${limits.maxInFlight} requests are arriving at once; try again`, {
        'retry-after': String(BUSY_RETRY_SECONDS),
        connection: 'close',
      });
      req.resume();
      if (!busyTold)
        options.onRefused?.({
          method,
          status: 503,
          message: `more than ${limits.maxInFlight} requests at once (more refused so are not reported)`,
        });
      busyTold = true;
      return;
    }
    inFlight++;
    try {
      await handlePost(req, res, method);
    } finally {
      inFlight--;
      if (inFlight < limits.maxInFlight) busyTold = false;
    }
  };

  const handlePost = async (req: IncomingMessage, res: ServerResponse, method: string): Promise<void> => {
    const declared = Number(req.headers['content-length']);
    const body = Number.isFinite(declared) && declared > MAX_BODY_BYTES ? null : await readBody(req);
    if (body === null) {
      const ended = await discardRest(req);
      answer(res, 413, `payload too large: the limit is ${MAX_BODY_BYTES} bytes`, ended ? {} : { connection: 'close' });
      options.onRefused?.({ method, status: 413, message: `a body larger than ${MAX_BODY_BYTES} bytes` });
      return;
    }
    const check = verdict({
      secret: typeof options.secret === 'function' ? options.secret() : options.secret,
      timestamp: header(req.headers, SIGNATURE_HEADERS.timestamp),
      signature: header(req.headers, SIGNATURE_HEADERS.signature),
      body,
      toleranceSeconds: options.toleranceSeconds,
      nowSeconds: Math.floor(now() / 1000),
      source: 'request',
    });
    const delivery: ReceivedDelivery = {
      deliveryId: header(req.headers, SIGNATURE_HEADERS.delivery) ?? null,
      event: header(req.headers, SIGNATURE_HEADERS.event) ?? null,
      ...payloadFields(body),
      valid: check.valid,
      reason: check.reason,
      explanation: check.explanation,
      ageSeconds: check.ageSeconds,
      status: 200,
    };
    if (!check.valid) {
      // The reason only: the sender learns what to fix, never what the signature should be.
      delivery.status = 401;
      answer(res, 401, `invalid signature: ${check.reason ?? 'invalid'}`);
    } else if (forwarding) {
      // Aborted only by close(): the answer then goes nowhere, but the delivery is settled.
      const result = await forwarding.send(forwardedHeaders(req.headers), body, closing.signal).catch(() => STOPPED);
      delivery.forwarded = result;
      if (result.status !== null) {
        delivery.status = result.status;
        answer(res, result.status, `forwarded: HTTP ${result.status}`);
      } else {
        delivery.status = 502;
        delivery.forwardError = result.error ?? 'no answer';
        answer(res, 502, `could not forward the delivery: ${delivery.forwardError}`);
      }
    } else {
      answer(res, 200, 'ok');
    }
    // A delivery that was in flight when close() began is not reported after it.
    if (!closing.signal.aborted) options.onDelivery(delivery, { method, path: req.url ?? '/', headers: req.headers, body });
  };

  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      // Node checks those timeouts at this interval (30 s by default, which would double them).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, limits.requestTimeoutMs / 4)),
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        // A broken request (the client went away mid-body) or a failing onDelivery: the receiver goes on.
        answer(res, 500, 'internal error');
        if (!res.writableEnded) res.destroy(error instanceof Error ? error : undefined);
      });
    },
  );
  let bound: AddressInfo;
  try {
    bound = await listenOn(server, options.host, options.port);
  } catch (error) {
    await forwarding?.close();
    if (error instanceof ListenError) {
      throw new UsageError(error.message, {
        cause: error.cause,
        hint: error.code === 'EADDRINUSE' ? '--port 0 picks a free port' : undefined,
      });
    }
    throw error;
  }

  let closed: Promise<void> | undefined;
  const port = bound.port;
  return {
    url: `http://${urlHost(options.host)}:${port}`,
    wildcardUrl: isWildcardAddress(bound.address) ? boundUrl(bound) : undefined,
    port,
    forward: forwarding === undefined ? undefined : (headers, body) => forwarding.send(headers, body, closing.signal).catch(() => STOPPED),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        // Keep-alive sockets (the sandbox's, a browser's) would hold close() open otherwise.
        server.closeAllConnections();
      }).then(() => forwarding?.close());
      return closed;
    },
  };
}
