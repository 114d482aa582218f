// Recordings of a fixed shape for tests whose expected output is written out exactly.
export function recording(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `rec_${String(n).padStart(4, '0')}`,
    title: `Intake call ${n}`,
    status: 'COMPLETED',
    priority: 'HIGH',
    audioDuration: 600 + n,
    audioSize: 9_600_000 + n,
    notes: [],
    documents: [],
    author: { id: 'usr_1', name: 'Ana Silva', email: 'ana@example.com' },
    client: { id: 'cli_1', name: 'Acme Ltd', referenceNumber: 'C-001' },
    matter: null,
    createdAt: '2026-11-20T09:00:00.000Z',
    updatedAt: '2026-11-21T10:30:00.000Z',
    lastSyncedAt: null,
    syncCount: 0,
    ...overrides,
  };
}

export function page(items: unknown[], nextCursor: string | null, limit = 50): Record<string, unknown> {
  return { data: items, meta: { count: items.length, limit, hasMore: nextCursor !== null, nextCursor } };
}

export function problem(
  status: number,
  code: string,
  title: string,
  requestId = 'req_test',
): {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
} {
  return {
    status,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': requestId },
    body: { type: `https://example.test/problems/${code.toLowerCase().replace(/_/g, '-')}`, title, status, code, requestId },
  };
}

/** The answers cli.md never retries, with the code of api.md's table and the exit code each gives. */
export const FINAL_ERRORS: readonly (readonly [status: number, code: string, exit: number])[] = [
  [400, 'INVALID_INPUT', 2],
  [400, 'INVALID_CURSOR', 2],
  [401, 'UNAUTHORIZED', 3],
  [403, 'INSUFFICIENT_SCOPE', 3],
  [403, 'SUBSCRIPTION_REQUIRED', 3],
  [404, 'RESOURCE_NOT_FOUND', 4],
  [409, 'RECORDING_NOT_COMPLETED', 5],
  [415, 'UNSUPPORTED_CONTENT_TYPE', 2],
];

/** Every path to a value inside `value` (the root included). */
export function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(value)) for (const [i, v] of value.entries()) out.push(...paths(v, [...at, i]));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

/** A copy of `value` with the value at `path` replaced (or removed, for `undefined`). */
export function replaceAt(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  if (rest.length === 0 && next === undefined) delete copy[head];
  else copy[head] = replaceAt(copy[head], rest, next);
  return copy;
}
