// One attempt of a request: a plain exchange over the transport, with its own timer for the whole
// of it (connecting, the head, and a body that never ends), and nothing else. Retry (retry.ts),
// pacing (pacing.ts) and a caller's budget (budget.ts) wrap it, each an `AttemptFn` around the
// next one, as Octokit's plugins wrap its `request`; the client (client.ts) puts them together.
import type { Readable } from 'node:stream';
import { type ApiError, ContractError } from '../core/errors.js';
import { firstHeader, problemFromResponse } from './problem.js';
import { classifyNetworkError, formatSeconds } from './retry.js';
import type { AttemptFailure } from './retry.js';
import type { Transport } from './transport.js';
import type { AttemptGate, Method } from './types.js';
import { cancelled } from './waits.js';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** What one attempt produced: a 2xx answer, or a failure for the retry policy to judge. */
export type Attempt =
  // body is undefined when the answer was larger than the cap and was left unread.
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

export interface NetworkFailureInfo {
  code: string;
  description: string;
  timedOut: boolean;
  cause: unknown;
}

/** One request as the attempts send it: the same target, headers and body every time. */
export interface Outgoing {
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

/** An attempt and how long it took from the moment it was sent. */
export interface Sent {
  result: Attempt;
  durationMs: number;
}

/** Attempt number `attempt` (from 1) of `out`; a wrapper does its part and calls the next. */
export type AttemptFn = (out: Outgoing, attempt: number) => Promise<Sent>;

/** Node's default, made explicit so the error for a larger head can say it. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** An error body only feeds the error line; a larger one is dropped rather than refused. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface SendOptions {
  transport: Transport;
  apiKey: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** One exchange with the service: an answer, or a failure the retry policy can judge; throws only for what no retry changes. */
export function createSend({ transport, apiKey, timeoutMs, maxResponseBytes }: SendOptions): (out: Outgoing) => Promise<Attempt> {
  return async ({ method, target, headers, body, signal }) => {
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
  };
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

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
