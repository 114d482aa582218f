// A delivery POSTed to a receiver as the service sends it (`rfs webhooks trigger`, and the
// forward of `rfs webhooks listen --forward-to`): the raw body and the x-service-* headers, no
// redirect followed, cut off after 10 s without an answer (the service's own limit, sandbox.md
// "Deliveries"). Plain http only to loopback: the body and
// a valid signature must not cross a network in clear text.
import { performance } from 'node:perf_hooks';
import { checkDestination } from '../core/loopback.js';

const SEND_TIMEOUT_MS = 10_000;

/** The --to value checked: an absolute https URL, or http to a loopback host. A UsageError (exit 2) otherwise. */
export function receiverUrl(value: string): URL {
  return checkDestination(value, {
    name: '--to',
    example: 'https://hooks.example.com/rfs',
    why: 'a signed delivery must not travel in clear text',
  });
}

/** How much of a receiver's answer is kept (cli.md, listen --forward-to: body up to 64 KiB). */
export const MAX_ANSWER_BODY_BYTES = 64 * 1024;

export interface SendResult {
  /** The receiver's status; null when there was no answer. */
  status: number | null;
  /** Why there was no answer. */
  error: string | null;
  /** From the request sent to the whole answer read (or the error). */
  durationMs: number;
  /** The answer's headers (a repeated one joined with ", "); empty without an answer. */
  headers: Record<string, string>;
  /** The answer's first MAX_ANSWER_BODY_BYTES bytes; the rest is read and dropped. */
  body: Buffer;
  /** The answer's body was longer than what `body` keeps. */
  bodyTruncated: boolean;
}

/** Why a request got no answer, in a line: the errno code and message of the innermost cause. */
function describeError(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const inner = cause instanceof Error ? cause : error;
  const code = (inner as { code?: unknown } | null)?.code;
  const message = inner instanceof Error ? inner.message : String(inner);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

export interface DeliverySender {
  /**
   * POSTs `body` with exactly `headers` once. Never throws for what the receiver does (no
   * answer, a timeout, a refused connection are a result); throws only when `signal` aborts.
   */
  send(headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<SendResult>;
  /** Closes the sockets it kept open for the next send. */
  close(): Promise<void>;
}

/** One sender per receiver URL: `webhooks trigger --to` and `webhooks listen --forward-to`. */
export async function openDeliverySender(url: URL): Promise<DeliverySender> {
  // The API client's transport (src/api/transport.ts): one origin, connections kept for the
  // next send, its own, so close() leaves no socket open.
  const { openTransport } = await import('../api/transport.js');
  const transport = openTransport(url, { maxHeaderBytes: 16 * 1024 });
  const path = `${url.pathname}${url.search}`;
  const send = async (headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<SendResult> => {
    const timeout = AbortSignal.timeout(SEND_TIMEOUT_MS);
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    try {
      const res = await transport.request({ path, method: 'POST', headers, body, signal: AbortSignal.any([signal, timeout]) });
      // The first 64 KiB are kept for the inspector; the rest is read and dropped so the
      // connection can be reused.
      const kept: Buffer[] = [];
      let size = 0;
      let bodyTruncated = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const room = MAX_ANSWER_BODY_BYTES - size;
        if (chunk.length > room) bodyTruncated = true;
        if (room > 0) kept.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, Math.max(room, 0));
      }
      const answerHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { status: res.status, error: null, durationMs: elapsed(), headers: answerHeaders, body: Buffer.concat(kept), bodyTruncated };
    } catch (error) {
      if (signal.aborted) throw error;
      const noAnswer = { status: null, durationMs: elapsed(), headers: {}, body: Buffer.alloc(0), bodyTruncated: false };
      if (timeout.aborted) return { ...noAnswer, error: `no answer within ${SEND_TIMEOUT_MS / 1000} s` };
      return { ...noAnswer, error: describeError(error) };
    }
  };
  return { send, close: () => transport.close() };
}
