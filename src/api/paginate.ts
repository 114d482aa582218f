// Cursor pagination as an async generator: items are yielded page by page, so a renderer can
// write each page as it arrives and memory does not grow with the number of items.
import type { z } from 'zod';
import { CancelError, RfsError } from '../cli/errors.js';
import type { ApiClient } from './types.js';

export interface Page<T> {
  items: T[];
  /** meta.nextCursor when meta.hasMore, else null. */
  nextCursor: string | null;
}

export interface PaginateOptions<T> {
  path: string;
  query: Record<string, string | number | undefined>;
  /** Parses one response into a page. */
  page: (client: ApiClient, query: Record<string, string | number | undefined>, signal?: AbortSignal) => Promise<Page<T>>;
  /** Start here instead of the first page. */
  cursor?: string;
  /** Follow cursors (else one page). */
  all: boolean;
  /** Stop after this many items. */
  maxItems?: number;
  signal?: AbortSignal;
  /** Told the cursor of the page after the last one read, when one exists and was not read. */
  onMore?: (cursor: string) => void;
}

/**
 * Yields every item of one page, or of every page with `all`. When fetching a page fails, the
 * error carries `resumeCursor`: the cursor of the first page not read, for `--cursor`.
 *
 * With `all`, the next page is requested as soon as a page arrives, while its items are still
 * being written: the server prepares one page while rfs prints the last, and at most two pages
 * are held at once. No page is requested that --max-items would not print.
 */
export async function* paginate<T>(client: ApiClient, o: PaginateOptions<T>): AsyncGenerator<T> {
  let cursor = o.cursor;
  let seen = 0;
  const fetchPage = (at: string | undefined): Promise<Page<T>> => {
    const request = o.page(client, { ...o.query, cursor: at }, o.signal);
    // Awaited below; until then a failure must not count as unhandled.
    request.catch(() => undefined);
    return request;
  };
  if (o.signal?.aborted) throw withResume(new CancelError('interrupted'), cursor);
  let pending = fetchPage(cursor);
  for (;;) {
    let page: Page<T>;
    try {
      page = await pending;
    } catch (error) {
      throw withResume(error, cursor);
    }
    const next = page.nextCursor;
    const wanted = o.maxItems === undefined || seen + page.items.length < o.maxItems;
    const prefetch = o.all && next !== null && wanted;
    if (prefetch) pending = fetchPage(next);
    for (const item of page.items) {
      if (o.maxItems !== undefined && seen >= o.maxItems) return;
      seen += 1;
      yield item;
    }
    if (next === null) return;
    if (!prefetch) {
      o.onMore?.(next);
      return;
    }
    if (o.signal?.aborted) throw withResume(new CancelError('interrupted'), next);
    cursor = next;
  }
}

function withResume(error: unknown, cursor: string | undefined): unknown {
  if (cursor !== undefined && error instanceof RfsError && error.resumeCursor === undefined) error.resumeCursor = cursor;
  return error;
}

/** A page reader for list answers of the form `{data: [...], meta: {hasMore, nextCursor}}`. */
export function listPage<T, S extends z.ZodType<{ data: T[]; meta?: { hasMore?: boolean; nextCursor?: string | null } | undefined }>>(
  path: string,
  schema: S,
): PaginateOptions<T>['page'] {
  return async (client, query, signal) => {
    const response = await client.request({ method: 'GET', path, query, schema, signal });
    const body = response.data as z.infer<S>;
    const next = body.meta?.hasMore === true ? (body.meta.nextCursor ?? null) : null;
    return { items: body.data, nextCursor: next };
  };
}
