// Problem details (RFC 9457) as the API sends them, and the reply type handlers return.
import { ERROR_CODES, type ErrorCode } from '../shared/schemas.js';

export const PROBLEM_BASE = 'https://sandbox.rfs.invalid/problems';

/**
 * api.md's codes, plus the sandbox's own for a body over its limit: api.md pairs INVALID_INPUT
 * with 400, and 413 is the status a proxy or client expects of an oversized body, so that one
 * has a code of its own (README, The sandbox). HOST_REFUSED: an /api/v1 request to a sandbox
 * bound to loopback, addressed by a name that is not loopback's (DNS rebinding: control-guard.ts). CONTROL_REFUSED: a control request from a web
 * page or addressed by another name (control-guard.ts); SNAPSHOT_LIMIT_EXCEEDED: a snapshot
 * beyond the cap (snapshots.ts).
 */
/** The codes an /api/v1 answer may carry (the OpenAPI document lists them per status). */
export type ApiProblemCode = ErrorCode | 'PAYLOAD_TOO_LARGE' | 'HOST_REFUSED';
export const PROBLEM_STATUSES: Record<ApiProblemCode, number> = { ...ERROR_CODES, PAYLOAD_TOO_LARGE: 413, HOST_REFUSED: 403 };
/** …and the control API's own, which no /api/v1 answer carries. */
export type ProblemCode = ApiProblemCode | 'CONTROL_REFUSED' | 'SNAPSHOT_LIMIT_EXCEEDED';
const STATUSES: Record<ProblemCode, number> = { ...PROBLEM_STATUSES, CONTROL_REFUSED: 403, SNAPSHOT_LIMIT_EXCEEDED: 409 };

const TITLES: Record<ProblemCode, string> = {
  INVALID_INPUT: 'Invalid input',
  INVALID_CURSOR: 'Invalid or expired cursor',
  IDEMPOTENCY_KEY_REQUIRED: 'Missing or invalid idempotency key',
  UNAUTHORIZED: 'Missing, invalid or revoked API key',
  INSUFFICIENT_SCOPE: 'The API key lacks the required scope',
  SUBSCRIPTION_REQUIRED: 'The workspace has no eligible active subscription',
  RESOURCE_NOT_FOUND: 'Resource not found',
  RECORDING_NOT_COMPLETED: 'The recording is not COMPLETED',
  WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED: 'The workspace already has 50 webhook subscriptions',
  UNSUPPORTED_CONTENT_TYPE: 'The request body must be application/json',
  RATE_LIMIT_EXCEEDED: 'Too many requests',
  INTERNAL_ERROR: 'Internal server error',
  PAYLOAD_TOO_LARGE: 'Request body too large',
  HOST_REFUSED: 'The sandbox answers only requests addressed to localhost or a loopback address',
  CONTROL_REFUSED: 'The control API answers only this machine, not web pages',
  SNAPSHOT_LIMIT_EXCEEDED: 'The sandbox already holds 20 snapshots',
};

export const problemTitle = (code: ProblemCode): string => TITLES[code];

/** What a handler answers: a status, optional headers, and JSON (text or UTF-8 bytes) or nothing. */
export interface Reply {
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export function json(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value) };
}

/**
 * Thrown anywhere in a request to answer with a problem. `detail` names what was wrong; it is
 * written to the sandbox's log, never into the answer, because api.md says the service omits
 * field-level details and an integration must not come to rely on them.
 */
export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    options?: { status?: number; headers?: Record<string, string>; extra?: Record<string, unknown> },
  ) {
    super(detail ?? TITLES[code]);
    this.status = options?.status ?? STATUSES[code];
    this.headers = options?.headers ?? {};
    this.extra = options?.extra ?? {};
  }
  readonly headers: Record<string, string>;
  /** Members added to the answer: only the control API uses them, never /api/v1 (see above). */
  readonly extra: Record<string, unknown>;
}

export function problemBody(error: ProblemError, requestId: string): string {
  const kebab = error.code.toLowerCase().replace(/_/g, '-');
  return JSON.stringify({
    type: `${PROBLEM_BASE}/${kebab}`,
    title: TITLES[error.code],
    status: error.status,
    code: error.code,
    requestId,
    ...error.extra,
  });
}

export const notFound = (what = 'no such resource in this workspace'): ProblemError => new ProblemError('RESOURCE_NOT_FOUND', what);
export const invalid = (detail: string): ProblemError => new ProblemError('INVALID_INPUT', detail);
