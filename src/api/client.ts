// The one HTTP client (style.md, One HTTP client): base URL, auth header, user agent, timeouts,
// retries, pacing, problem-details errors and the -v lines live here once. As in Octokit, one
// attempt (`send`) is a plain exchange, and the retry/pacing loop (`request`) wraps it.
import type { Readable } from 'node:stream';
import { channel } from 'node:diagnostics_channel';
import { type Clock, systemClock } from '../core/clock.js';
import { ApiError, CancelError, ContractError, NetworkError } from '../core/errors.js';
import { checkShape, parseJson } from './contract.js';
import { redactKey } from '../core/redact.js';
import { apiRoot, checkKeyFormat } from '../config/credentials.js';
import { TokenBucket } from './pacing.js';
import { firstHeader, problemFromResponse } from './problem.js';
import { classifyNetworkError, formatSeconds, planRetry, SendLog } from './retry.js';
import type { AttemptFailure, RetryPlan } from './retry.js';
import { isIdempotent } from './idempotency.js';
import { openTransport } from './transport.js';
import type { ApiClient, ApiResponse, AttemptGate, Method, RawRequest, RawResponse, RequestOptions } from './types.js';
import { describeWait, formatAttemptLine, redactSecrets } from './verbose.js';

/** now, sleep and random default to the system's (core/clock.ts); tests pass their own. */
export interface ClientOptions extends Partial<Clock> {
  /** Service root as configured; apiRoot() refuses plain http to a non-loopback host. */
  baseUrl: string;
  apiKey: string;
  /** Per attempt: connecting, sending, and reading the whole answer. */
  timeoutMs: number;
  /** Retries after the first attempt, for retryable failures only. */
  maxRetries: number;
  /** Client-side pacing (token bucket, burst 10); 0 = unpaced. */
  ratePerMinute: number;
  /** Default `rfs/<version> node/<version>`. */
  userAgent?: string;
  /** Verbose: one line per attempt. */
  log?: (line: string) => void;
  /**
   * Called before every wait: before each retry, and before a pacing wait that is not zero.
   * `attempt` is the number of the attempt that follows the wait.
   */
  onWait?: (wait: { ms: number; reason: string; attempt: number }) => void;
  /** Default 16 MiB; a larger answer is a ContractError, and is read no further. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Node's default, made explicit so the error for a larger head can say it. */
const MAX_HEADER_BYTES = 16 * 1024;
/** An error body only feeds the error line; a larger one is dropped rather than refused. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

type ResponseHeaders = Record<string, string | string[] | undefined>;

/**
 * Every attempt and every wait, for whoever watches a long run (sync --metrics, --log-format
 * json) without a hook through every caller: `{ method, status, durationMs }` (status null for a
 * network failure) and `{ ms, reason, attempt }`. Free when nobody subscribes.
 */
export const ATTEMPT_CHANNEL = 'rfs:api:attempt';
export const WAIT_CHANNEL = 'rfs:api:wait';
const attemptChannel = channel(ATTEMPT_CHANNEL);
const waitChannel = channel(WAIT_CHANNEL);

/** What WAIT_CHANNEL publishes before every wait: onWait's argument, and which kind of wait it is. */
export interface WaitMessage {
  ms: number;
  reason: string;
  attempt: number;
  kind: 'pacing' | 'retry';
}

/** What one attempt produced: a 2xx answer, or a failure for the retry policy to judge. */
type Attempt =
  // body is undefined when the answer was larger than maxResponseBytes and was left unread.
  | { ok: true; status: number; statusText: string; headers: ResponseHeaders; body: Buffer | undefined; requestId: string | null }
  | {
      ok: false;
      failure: AttemptFailure;
      error: ApiError | NetworkFailureInfo;
      outcome: string;
      requestId: string | null;
      /** The error answer itself, for `rfs api` to print (body undefined when over the cap). */
      answer?: { status: number; statusText: string; headers: ResponseHeaders; body: Buffer | undefined };
    };

/** One request as the attempts send it: the same target, headers and body every time. */
interface Outgoing {
  method: Method;
  /** Below `/api/v1`, as the caller gave it: what the idempotency rule reads. */
  path: string;
  /** The path and query sent, from the origin. */
  target: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  signal: AbortSignal | undefined;
  beforeAttempt: AttemptGate | undefined;
}

interface NetworkFailureInfo {
  code: string;
  description: string;
  timedOut: boolean;
  cause: unknown;
}

export function createApiClient(options: ClientOptions): ApiClient {
  const root = new URL(apiRoot(options.baseUrl));
  const apiKey = checkKeyFormat(options.apiKey);
  const rootPath = root.pathname.replace(/\/+$/, '');
  const baseUrl = `${root.origin}${rootPath.replace(/\/api\/v1$/, '')}`;
  const userAgent = options.userAgent ?? `rfs/${RFS_VERSION} node/${process.versions.node}`;
  const now = options.now ?? systemClock.now;
  const random = options.random ?? systemClock.random;
  const sleep = options.sleep ?? systemClock.sleep;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { timeoutMs, maxRetries, log, onWait } = options;
  const attempts = maxRetries + 1;
  const bucket = options.ratePerMinute > 0 ? new TokenBucket(options.ratePerMinute) : undefined;
  const sendLog = new SendLog();
  // One per-attempt timer in send() covers the whole exchange: connecting, the head, and a body
  // that never ends.
  const transport = openTransport(root, { maxHeaderBytes: MAX_HEADER_BYTES });
  let closed = false;

  const redact = (text: string): string => redactSecrets(text, apiKey);

  /** Before every wait: the caller's onWait, and whoever listens on WAIT_CHANNEL (sync's metrics and log). */
  function announceWait(wait: WaitMessage): void {
    onWait?.({ ms: wait.ms, reason: wait.reason, attempt: wait.attempt });
    waitChannel.publish(wait);
  }

  async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal);
      throw error;
    }
    if (signal?.aborted) throw cancelled(signal);
  }

  async function gate(beforeAttempt: AttemptGate, signal: AbortSignal | undefined): Promise<void> {
    try {
      await beforeAttempt(signal);
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal);
      throw error;
    }
  }

  async function send({ method, target, headers, body, signal }: Outgoing): Promise<Attempt> {
    const attempt = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort(new Error(`no complete answer within ${formatSeconds(timeoutMs)}`));
    }, timeoutMs);
    const forward = (): void => attempt.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      const res = await transport.request({ path: target, method, headers, body, signal: attempt.signal });
      const status = res.status;
      const ok = status >= 200 && status < 300;
      const bytes = await readCapped(
        res.body,
        res.headers['content-length'],
        ok ? maxResponseBytes : Math.min(maxResponseBytes, MAX_ERROR_BODY_BYTES),
      );
      const requestId = firstHeader(res.headers['x-request-id']) ?? null;
      if (ok) return { ok: true, status, statusText: res.statusText, headers: res.headers, body: bytes, requestId };
      const error = problemFromResponse({ status, statusText: res.statusText, headers: res.headers, body: bytes }, apiKey);
      return {
        ok: false,
        failure: { kind: 'status', status, retryAfter: res.headers['retry-after'] },
        error,
        outcome: `${status} ${error.code}`,
        requestId: error.requestId,
        answer: { status, statusText: res.statusText, headers: res.headers, body: bytes },
      };
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal);
      const network = timedOut
        ? { code: 'TIMEOUT', description: `timed out after ${formatSeconds(timeoutMs)}`, retryable: true }
        : classifyNetworkError(error);
      if (network === undefined) {
        // More header bytes than are read, or bytes that are not HTTP at all (Node's parser
        // errors): the answer broke the contract, and repeating the request will not change
        // what is listening there.
        const code = (error as { code?: unknown } | null)?.code;
        if (code === 'HPE_HEADER_OVERFLOW') {
          throw new ContractError(`the server's answer has more header bytes than rfs reads (${formatBytes(MAX_HEADER_BYTES)})`, {
            cause: error,
            apiKey,
          });
        }
        if (typeof code === 'string' && code.startsWith('HPE_')) {
          throw new ContractError(`the server's answer is not valid HTTP (${code})`, {
            cause: error,
            hint: 'check --base-url: it should point at the Recording Filing Service',
            apiKey,
          });
        }
        throw error;
      }
      return {
        ok: false,
        failure: { kind: 'network', retryable: network.retryable, reason: network.description, code: network.code },
        error: { code: network.code, description: network.description, timedOut, cause: error },
        outcome: timedOut ? network.description : `${network.description} (${network.code})`,
        requestId: null,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }

  /** The error a failed request ends with, once the retry policy has given up. */
  function finalError(method: Method, target: string, last: Extract<Attempt, { ok: false }>, plan: RetryPlan, made: number): Error {
    const tries = `${made} attempt${made === 1 ? '' : 's'}`;
    const error = last.error;
    if (error instanceof ApiError) {
      if (plan.retry === false && plan.because === 'exhausted') {
        error.hint = `still HTTP ${error.status} after ${tries}; ${error.status === 429 ? 'lower --rate, or ' : ''}try again later`;
      }
      return error;
    }
    const what = `${method} ${redact(target)}`;
    const gaveUp = plan.retry === false && plan.because === 'exhausted' ? `; gave up after ${tries}` : '';
    if (error.timedOut) {
      return new NetworkError(`${what}: no complete answer from ${root.host} within ${formatSeconds(timeoutMs)}${gaveUp}`, {
        cause: error.cause,
        hint: 'raise --timeout, or try again later',
        apiKey,
      });
    }
    return new NetworkError(`${what}: ${error.description} (${error.code}) at ${root.host}${gaveUp}`, {
      cause: error.cause,
      hint: 'check --base-url (or RFS_BASE_URL) and the network',
      apiKey,
    });
  }

  function logAttempt(
    method: Method,
    target: string,
    headers: Record<string, string>,
    fields: { outcome: string; durationMs: number; requestId: string | null; attempt: number; next?: string },
  ): void {
    log?.(formatAttemptLine({ method, target, attempts, idempotencyKey: headers['idempotency-key'], ...fields }, apiKey));
  }

  type Exchange = { result: Attempt; attempts: number; plan?: RetryPlan };

  /** Attempts until one answers 2xx or the retry policy gives up; never throws for an answer. */
  async function exchange(out: Outgoing): Promise<Exchange> {
    if (closed) throw new Error('the API client is closed');
    const { method, target, headers, signal } = out;
    // cli.md: a POST is sent again only when the contract makes a repeat harmless.
    const idempotent = isIdempotent(method, out.path, headers);
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw cancelled(signal);
      // A caller's own budget (watch's) holds every attempt, retries included, not just the first.
      if (out.beforeAttempt) await gate(out.beforeAttempt, signal);
      if (bucket) {
        const ms = bucket.reserve(now());
        if (ms > 0) {
          announceWait({ ms, reason: `pacing: at most ${options.ratePerMinute} requests per minute (--rate)`, attempt, kind: 'pacing' });
          await pause(ms, signal);
        }
      }
      const started = now();
      sendLog.record(started);
      const result = await send(out);
      const durationMs = now() - started;
      if (attemptChannel.hasSubscribers) {
        const status = result.ok ? result.status : result.failure.kind === 'status' ? result.failure.status : null;
        attemptChannel.publish({ method, status, durationMs });
      }

      if (result.ok) {
        logAttempt(method, target, headers, { outcome: String(result.status), durationMs, requestId: result.requestId, attempt });
        return { result, attempts: attempt };
      }

      const at = now();
      const plan = planRetry({
        failure: result.failure,
        retry: attempt,
        maxRetries,
        now: at,
        random,
        oldestRecentSend: sendLog.oldestWithin(at),
        idempotent,
      });
      const next = plan.retry ? describeWait(plan.ms) : whyNotRetried(plan);
      logAttempt(method, target, headers, {
        outcome: result.outcome,
        durationMs,
        requestId: result.requestId,
        attempt,
        ...(next ? { next } : {}),
      });
      if (!plan.retry) return { result, attempts: attempt, plan };
      announceWait({ ms: plan.ms, reason: plan.reason, attempt: attempt + 1, kind: 'retry' });
      await pause(plan.ms, signal);
    }
  }

  async function request<T>(req: RequestOptions<T>): Promise<ApiResponse<T>> {
    const target = buildTarget(rootPath, req.path, req.query);
    const headers = buildHeaders(req.headers, req.body !== undefined, userAgent, apiKey);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const { result, attempts, plan } = await exchange({
      method: req.method,
      path: req.path,
      target,
      headers,
      body,
      signal: req.signal,
      beforeAttempt: req.beforeAttempt,
    });
    if (!result.ok) throw finalError(req.method, target, result, plan as RetryPlan, attempts);
    if (result.body === undefined) {
      throw new ContractError(`the server's answer is larger than ${formatBytes(maxResponseBytes)}; it was not read`);
    }
    return {
      status: result.status,
      data: decode(req.schema, result.body, req.onJson, apiKey),
      requestId: result.requestId,
      headers: result.headers,
      attempts,
    };
  }

  async function requestRaw(req: RawRequest): Promise<RawResponse> {
    const target = buildTarget(rootPath, req.path, undefined);
    const headers = buildHeaders(req.headers, req.body !== undefined, userAgent, apiKey);
    const { result, attempts, plan } = await exchange({
      method: req.method,
      path: req.path,
      target,
      headers,
      body: req.body,
      signal: req.signal,
      beforeAttempt: req.beforeAttempt,
    });
    if (result.ok) {
      if (result.body === undefined) {
        throw new ContractError(`the server's answer is larger than ${formatBytes(maxResponseBytes)}; it was not read`);
      }
      const { status, statusText, headers: answerHeaders, body, requestId } = result;
      return { status, statusText, headers: answerHeaders, body, requestId, attempts };
    }
    const error = finalError(req.method, target, result, plan as RetryPlan, attempts);
    if (result.answer === undefined || !(error instanceof ApiError)) throw error;
    return { ...result.answer, requestId: result.requestId, attempts, error };
  }

  return {
    baseUrl,
    redactedKey: redactKey(apiKey),
    request,
    requestRaw,
    async close() {
      if (closed) return;
      closed = true;
      await transport.close();
    },
  };
}

function buildTarget(rootPath: string, path: string, query: RequestOptions<unknown>['query']): string {
  // Sent verbatim: no URL parser sees it, so `%2E%2E` stays a segment and never means "parent".
  if (!path.startsWith('/')) throw new TypeError(`an API path starts with "/" (got ${JSON.stringify(path)})`);
  return `${rootPath}${withQuery(path, query)}`;
}

/** `path` with the query parameters added (after any it already has); undefined values are left out. */
export function withQuery(path: string, query: RequestOptions<unknown>['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.append(name, String(value));
  }
  const search = params.toString();
  return `${path}${search ? (path.includes('?') ? '&' : '?') + search : ''}`;
}

function buildHeaders(
  extra: Record<string, string> | undefined,
  hasBody: boolean,
  userAgent: string,
  apiKey: string,
): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (hasBody) headers['content-type'] = 'application/json';
  // Caller headers (Idempotency-Key) are the same object on every attempt of this request.
  for (const [name, value] of Object.entries(extra ?? {})) headers[name.toLowerCase()] = value;
  headers['user-agent'] = userAgent;
  headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

function decode<T>(schema: RequestOptions<T>['schema'], body: Buffer, onJson: RequestOptions<T>['onJson'], apiKey: string): T {
  try {
    return decodeBody(schema, body, onJson);
  } catch (error) {
    // The message may quote a field of the answer: built again, so the exact key goes too.
    if (!(error instanceof ContractError)) throw error;
    throw new ContractError(error.message, { cause: error.cause, hint: error.hint, path: error.path, apiKey });
  }
}

function decodeBody<T>(schema: RequestOptions<T>['schema'], body: Buffer, onJson: RequestOptions<T>['onJson']): T {
  if (schema === null) {
    // Nothing is relied on, but a body that is there must still be JSON: a captive portal's
    // "200 OK" page must not pass for a successful delete.
    return (body.length === 0 ? undefined : parseJson(body)) as T;
  }
  const value = parseJson(body);
  onJson?.(value);
  return checkShape(schema, value);
}

/** The body's bytes, or undefined (and the rest left unread) when it is larger than `cap`. */
async function readCapped(body: Readable, declaredLength: string | string[] | undefined, cap: number): Promise<Buffer | undefined> {
  const declared = Number(firstHeader(declaredLength));
  if (Number.isFinite(declared) && declared > cap) {
    body.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > cap) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** The end of the -v line of an attempt that is not sent again (a final status says nothing more). */
function whyNotRetried(plan: Extract<RetryPlan, { retry: false }>): string | undefined {
  switch (plan.because) {
    case 'exhausted':
      return 'giving up';
    case 'not-idempotent':
      return 'not retrying: a POST without an Idempotency-Key may already have been carried out';
    case 'final':
      return undefined;
  }
}

function cancelled(signal: AbortSignal): CancelError {
  return new CancelError('cancelled', { cause: signal.reason });
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
