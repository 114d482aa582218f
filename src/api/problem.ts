// A non-2xx answer becomes an ApiError (api.md, Errors: RFC 9457 problem details). The HTTP
// status always wins over the body's `status`; a body that is not problem details (an HTML page
// from a proxy) still gives a usable error, built from the status alone.
import { ApiError } from '../core/errors.js';
import { redactSecrets, redactValue } from '../core/redact.js';
import { ProblemDetails } from '../shared/answer-checks.generated.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../shared/json-depth.js';

// node:http is asked for only when an error is described: loading it costs about 3 ms of every
// start-up here. And not with `import … from 'node:http'`: on Node 22+ an ES module import of
// node:http reads every export, and its lazy WebSocket getters load Node's own copy of undici,
// with node:tls and node:http2 (measured on Node 24: about 30 ms).
const statusCodes = (): Record<number, string | undefined> => process.getBuiltinModule('node:http').STATUS_CODES;

/** Server text is kept as data (the printer sanitises it) but never at absurd length. */
export const MAX_PROBLEM_TEXT = 300;

export function truncateText(text: string, max = MAX_PROBLEM_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface ErrorAnswer {
  status: number;
  /** The reason phrase the server sent, if any. */
  statusText?: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes, or undefined when it was not read (too large). */
  body: Buffer | undefined;
}

/**
 * `apiKey` is the key the request carried: a server may echo it in any field or header, in any
 * form (percent-encoded, JSON-escaped), so it is removed before anything is cut to length (a key
 * cut in half would no longer be recognised) and again by the ApiError itself.
 */
export function problemFromResponse(answer: ErrorAnswer, apiKey?: string): ApiError {
  const { status } = answer;
  const raw = parseObject(answer.body);
  const body = raw === undefined ? undefined : (redactValue(raw, apiKey) as Record<string, unknown>);
  const headerRequestId = firstHeader(answer.headers['x-request-id']);
  const parsed = body === undefined ? undefined : ProblemDetails(body);
  const problem = parsed?.success ? parsed.data : undefined;
  const statusText = statusCodes()[status] ?? redactSecrets(answer.statusText || `HTTP ${status}`, apiKey);
  const kept = body === undefined ? undefined : truncateFields(body);
  return new ApiError(
    {
      status,
      code: truncateText(problem?.code || `HTTP_${status}`, 100),
      title: truncateText(problem?.title || statusText),
      requestId:
        truncateOrNull(problem?.requestId) ??
        truncateOrNull(headerRequestId === undefined ? undefined : redactSecrets(headerRequestId, apiKey)),
      ...(problem?.type ? { type: truncateText(problem.type) } : {}),
      ...(kept ? { body: kept } : {}),
    },
    { apiKey },
  );
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function truncateOrNull(text: string | undefined): string | null {
  return text ? truncateText(text, 200) : null;
}

/** The body as a JSON object, or undefined for anything else (HTML, plain text, an array). */
function parseObject(body: Buffer | undefined): Record<string, unknown> | undefined {
  if (body === undefined || body.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    // Too deep to print safely (contract.ts): the error is then built from the status alone.
    if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return undefined;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The problem object as sent, with its well-known text fields cut to a sane length. */
function truncateFields(body: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...body };
  for (const key of ['type', 'title', 'code', 'requestId', 'detail', 'instance']) {
    const value = copy[key];
    if (typeof value === 'string') copy[key] = truncateText(value);
  }
  return copy;
}
