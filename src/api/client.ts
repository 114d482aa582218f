// The one HTTP client (style.md, One HTTP client): base URL, auth header, user agent, timeouts,
// retries, pacing, problem-details errors and the -v lines live here once. As Octokit's plugins
// wrap its `request`, one attempt (attempt.ts) is wrapped by small modules, each its own rule:
// retry (retrying.ts) around a caller's budget (budget.ts) around pacing (pacing.ts) around the
// attempt, timed and told on ATTEMPT_CHANNEL. So every attempt, retries included, is paced and
// held to the budget, and the client itself only builds requests and reads their answers.
import { type Clock, systemClock } from '../core/clock.js';
import { ApiError, ContractError, NetworkError } from '../core/errors.js';
import { checkShape, parseJson } from './contract.js';
import { redactKey } from '../core/redact.js';
import { apiRoot, checkKeyFormat } from '../config/credentials.js';
import { type Attempt, type AttemptFn, MAX_HEADER_BYTES, createSend, formatBytes } from './attempt.js';
import { budgetGated } from './budget.js';
import { paced } from './pacing.js';
import { formatSeconds, type RetryPlan, SendLog } from './retry.js';
import { withRetries } from './retrying.js';
import { openTransport } from './transport.js';
import type { ApiClient, ApiResponse, Method, RawRequest, RawResponse, RequestOptions } from './types.js';
import { redactSecrets } from './verbose.js';
import { attemptChannel, makeWaits, type WaitMessage } from './waits.js';

export { ATTEMPT_CHANNEL, WAIT_CHANNEL, type WaitMessage } from './waits.js';

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
  onWait?: (wait: WaitMessage) => void;
  /** Default 16 MiB; a larger answer is a ContractError, and is read no further. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

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
  const { timeoutMs, maxRetries, log } = options;
  const sendLog = new SendLog();
  const transport = openTransport(root, { maxHeaderBytes: MAX_HEADER_BYTES });
  let closed = false;

  const redact = (text: string): string => redactSecrets(text, apiKey);
  const send = createSend({ transport, apiKey, timeoutMs, maxResponseBytes });
  /** The attempt as sent: timed from the moment it goes out, and told to whoever counts attempts. */
  const timed: AttemptFn = async (out) => {
    const started = now();
    sendLog.record(started);
    const result = await send(out);
    const durationMs = now() - started;
    if (attemptChannel.hasSubscribers) {
      const status = result.ok ? result.status : result.failure.kind === 'status' ? result.failure.status : null;
      attemptChannel.publish({ method: out.method, status, durationMs });
    }
    return { result, durationMs };
  };
  const waits = makeWaits(sleep, options.onWait);
  const exchange = withRetries(budgetGated(paced(timed, { ratePerMinute: options.ratePerMinute, now, waits })), {
    maxRetries,
    now,
    random,
    sendLog,
    waits,
    log,
    apiKey,
  });

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

  async function request<T>(req: RequestOptions<T>): Promise<ApiResponse<T>> {
    const target = buildTarget(rootPath, req.path, req.query);
    const headers = buildHeaders(req.headers, req.body !== undefined, userAgent, apiKey);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    if (closed) throw new Error('the API client is closed');
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
    if (closed) throw new Error('the API client is closed');
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
