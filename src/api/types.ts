// The contract between commands and the one HTTP client (src/api/client.ts).
import type { ApiError } from '../core/errors.js';
import type { Check } from '../shared/check-runtime.js';

export type Method = 'GET' | 'POST' | 'DELETE';

/**
 * Waited for before every attempt of a request, retries included (a caller's own budget, as
 * watch keeps one): it resolves when the attempt may be sent.
 */
export type AttemptGate = (signal: AbortSignal | undefined) => Promise<void>;

export interface RequestOptions<T> {
  method: Method;
  /**
   * Path below `{base_url}/api/v1`, starting with `/`, built with `apiPath()` so that every id is
   * percent-encoded into one segment. The client sends it as is: it is never normalised.
   */
  path: string;
  /** Undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON with `Content-Type: application/json`. */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * The check of a 2xx body's shape (shared/answer-checks.generated.ts); `null` for answers that
   * carry no body we rely on (204, or not shown).
   */
  schema: Check<T> | null;
  signal?: AbortSignal;
  /**
   * Told the parsed JSON of a 2xx answer before it is checked against `schema`: paginate reads
   * the next cursor there to request the next page while this one is checked. Must not throw.
   */
  onJson?: (value: unknown) => void;
  beforeAttempt?: AttemptGate;
}

export interface ApiResponse<T> {
  status: number;
  /** The parsed body (undefined when schema is null and there was no body). */
  data: T;
  requestId: string | null;
  headers: Record<string, string | string[] | undefined>;
  /** How many attempts this took (1 when the first one answered). */
  attempts: number;
}

/** A request as `rfs api` makes it: a checked path with its query, and a body sent as given. */
export interface RawRequest {
  method: Method;
  /** Below `{base_url}/api/v1`, starting with `/`, query included; sent as is (see api/raw-path.ts). */
  path: string;
  headers?: Record<string, string>;
  /** Sent with `Content-Type: application/json` unless `headers` names another type. */
  body?: string | Buffer;
  signal?: AbortSignal;
  beforeAttempt?: AttemptGate;
}

/** The answer as it came, 2xx or not: an error answer also carries the error it stands for. */
export interface RawResponse {
  status: number;
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  /** Undefined for an error answer larger than the client reads. */
  body: Buffer | undefined;
  requestId: string | null;
  attempts: number;
  /** Set when the answer is not 2xx (after any retries): what other commands would throw. */
  error?: ApiError;
}

export interface ApiClient {
  /** Service root as configured, without `/api/v1`. */
  readonly baseUrl: string;
  /** The key shown as `service_pk_…` plus its last 4 characters. */
  readonly redactedKey: string;
  request<T>(options: RequestOptions<T>): Promise<ApiResponse<T>>;
  /** The same attempts, retries, pacing and verbose lines, with the answer returned unparsed. */
  requestRaw(options: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

/**
 * Builds an API path from segments, percent-encoding each so that an id can never change the
 * path requested (cli.md): `/`, `?`, `#` and `%` are encoded, and so is every `.` — a segment of
 * `..` or `%2E%2E` would otherwise be read as "the parent" by URL parsers along the way.
 */
export function apiPath(...segments: string[]): string {
  return `/${segments.map((s) => encodeURIComponent(s).replace(/\./g, '%2E')).join('/')}`;
}
