// The contract between commands and the one HTTP client (src/api/client.ts).
import type { core } from 'zod/mini';

export type Method = 'GET' | 'POST' | 'DELETE';

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
  /** Shape of a 2xx body; `null` for answers that carry no body we rely on (204, or not shown). */
  schema: core.$ZodType<T> | null;
  signal?: AbortSignal;
  /**
   * Told the parsed JSON of a 2xx answer before it is checked against `schema`: paginate reads
   * the next cursor there to request the next page while this one is checked. Must not throw.
   */
  onJson?: (value: unknown) => void;
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

export interface ApiClient {
  /** Service root as configured, without `/api/v1`. */
  readonly baseUrl: string;
  /** The key shown as `service_pk_…` plus its last 4 characters. */
  readonly redactedKey: string;
  request<T>(options: RequestOptions<T>): Promise<ApiResponse<T>>;
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
