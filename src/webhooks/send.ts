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

export interface SendResult {
  /** The receiver's status; null when there was no answer. */
  status: number | null;
  /** Why there was no answer. */
  error: string | null;
  durationMs: number;
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
      // Only the status counts; the body is read and dropped so the connection can be reused.
      for await (const _ of res.body) {
        // dropped
      }
      return { status: res.status, error: null, durationMs: elapsed() };
    } catch (error) {
      if (signal.aborted) throw error;
      if (timeout.aborted) return { status: null, error: `no answer within ${SEND_TIMEOUT_MS / 1000} s`, durationMs: elapsed() };
      return { status: null, error: describeError(error), durationMs: elapsed() };
    }
  };
  return { send, close: () => transport.close() };
}
