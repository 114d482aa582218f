// The `-v` line: one per HTTP attempt (cli.md, Global options). It must be safe to paste into a
// public issue, so it never carries a header, and anything that looks like a key, a webhook
// secret or a signature is redacted wherever it appears (path, query, server text).
import { redactSecrets } from '../core/redact.js';
import { formatSeconds } from './retry.js';

export { redactSecrets };

/** Control characters from server text are shown escaped, never interpreted by a terminal. */
export function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export interface AttemptLine {
  method: string;
  /** The path and query as sent. */
  target: string;
  /** `503 INTERNAL_ERROR`, or a network failure such as `connection refused (ECONNREFUSED)`. */
  outcome: string;
  durationMs: number;
  requestId?: string | null | undefined;
  attempt: number;
  attempts: number;
  idempotencyKey?: string | undefined;
  /** What happens next: `retry in 1.2 s`, `giving up`, … (nothing after a success). */
  next?: string | undefined;
}

/** `GET /api/v1/recordings?limit=1 → 200 · 12 ms · request req_1 · attempt 1/6` */
export function formatAttemptLine(line: AttemptLine, apiKey?: string): string {
  const parts = [`${line.method} ${line.target} → ${line.outcome}`, `${Math.round(line.durationMs)} ms`];
  if (line.requestId) parts.push(`request ${line.requestId}`);
  parts.push(`attempt ${line.attempt}/${line.attempts}`);
  if (line.idempotencyKey) parts.push(`idempotency-key ${line.idempotencyKey}`);
  if (line.next) parts.push(line.next);
  return escapeControl(redactSecrets(parts.join(' · '), apiKey));
}

export function describeWait(ms: number): string {
  return `retry in ${formatSeconds(ms)}`;
}
