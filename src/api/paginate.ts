// Cursor pagination as an async generator of pages: a renderer writes each page as it arrives
// (a table lays each one out for the terminal's width of that moment, cli.md), and memory does
// not grow with the number of items. Those who want items iterate the same listing item by item.
import { ApiError, CancelError, ContractError, RfsError } from '../core/errors.js';
import type { Check } from '../shared/check-runtime.js';
import type { ApiClient } from './types.js';
import { notePageCursor } from './page-cursor.js';

export interface Page<T> {
  items: T[];
  /** meta.nextCursor when meta.hasMore, else null. */
  nextCursor: string | null;
  /** meta.hasMore: true with no cursor is an answer that breaks the contract. */
  hasMore?: boolean;
}

/** What a page reader can tell from the raw answer, before checking it against its schema. */
export interface PagePeek {
  /** The next page's cursor, or null when the answer says there is none. */
  cursor: string | null;
  /** How many items the page holds. */
  count: number;
}

export interface PaginateOptions<T> {
  path: string;
  query: Record<string, string | number | undefined>;
  /**
   * Parses one response into a page. `peek`, when given, is to be told the raw answer's cursor as
   * soon as it is known (before the answer is checked), so that the next page can be requested.
   */
  page: (
    client: ApiClient,
    query: Record<string, string | number | undefined>,
    signal?: AbortSignal,
    peek?: (p: PagePeek) => void,
  ) => Promise<Page<T>>;
  /** Start here instead of the first page. */
  cursor?: string;
  /** Follow cursors (else one page). */
  all: boolean;
  /** Stop after this many items. */
  maxItems?: number;
  signal?: AbortSignal;
  /** Told the cursor of the page after the last one read, when one exists and was not read. */
  onMore?: (cursor: string) => void;
  /** Told that --max-items stopped in the middle of a page: more exists, and no cursor resumes there. */
  onCut?: () => void;
}

/** One page requested and not yet printed. */
interface Slot<T> {
  cursor: string | undefined;
  /** Items on the pages before this one. */
  before: number;
  controller: AbortController;
  request: Promise<Page<T>>;
  peeked?: PagePeek;
}

/**
 * A listing: its items one by one when iterated, or, through `pages()`, the pages as the API
 * answered them (a page cut short by --max-items ends there). Read it one way or the other.
 */
export type Paged<T> = AsyncGenerator<T> & { pages(): AsyncGenerator<readonly T[]> };

/** The listing whose pages `pages` yields; its items are those of the pages in turn. */
export function paged<T>(pages: AsyncGenerator<readonly T[]>): Paged<T> {
  async function* items(): AsyncGenerator<T> {
    for await (const page of pages) yield* page;
  }
  return Object.assign(items(), { pages: () => pages });
}

/** Pages waiting (requested, not yet printed) at most: with the one being printed, three. */
const AHEAD = 2;

/**
 * One page, or every page with `all`, as a listing (`Paged`). When fetching a page fails, the
 * error carries `resumeCursor`: the cursor of the first page not read, for `--cursor`.
 *
 * With `all`, the next page is requested as soon as an answer's cursor is parsed, before the
 * answer is checked against its schema and while earlier items are still being written: the
 * server prepares the next page while rfs checks and prints the ones it has. At most two pages
 * wait besides the one being printed, so memory stays flat; no page is requested that
 * --max-items would not print; a page that fails its check cancels the one requested after it.
 */
export function paginate<T>(client: ApiClient, o: PaginateOptions<T>): Paged<T> {
  return paged(pagesOf(client, o));
}

async function* pagesOf<T>(client: ApiClient, o: PaginateOptions<T>): AsyncGenerator<readonly T[]> {
  if (o.signal?.aborted) throw withResume(new CancelError('interrupted'), o.cursor);
  const wanted = (through: number): boolean => o.maxItems === undefined || through < o.maxItems;
  const queue: Slot<T>[] = [];
  // Every cursor this listing has asked for: a server that hands one back again (hasMore true,
  // the same nextCursor) would be followed forever.
  const requested = new Set<string>();
  let pageNo = 0;
  const start = (cursor: string | undefined, before: number): void => {
    if (cursor !== undefined) requested.add(cursor);
    const slot: Slot<T> = { cursor, before, controller: new AbortController(), request: Promise.resolve({ items: [], nextCursor: null }) };
    const peek = o.all
      ? (p: PagePeek): void => {
          slot.peeked = p;
          startAfter(slot);
        }
      : undefined;
    slot.request = o.page(client, { ...o.query, cursor }, slot.controller.signal, peek);
    // Awaited in turn below; until then a failure must not count as unhandled.
    slot.request.catch(() => undefined);
    queue.push(slot);
  };
  /** Requests the page after `slot` if its cursor is known, it is the newest, and there is room. */
  const startAfter = (slot: Slot<T>): void => {
    const p = slot.peeked;
    if (p === undefined || p.cursor === null || queue.length >= AHEAD || queue[queue.length - 1] !== slot) return;
    // A repeated cursor is not asked for ahead: the checked answer says it is an error.
    if (requested.has(p.cursor)) return;
    if (wanted(slot.before + p.count)) start(p.cursor, slot.before + p.count);
  };
  // One listener for Ctrl-C, however many pages are requested.
  const cancel = (): void => {
    for (const slot of queue) slot.controller.abort(o.signal?.reason);
  };
  o.signal?.addEventListener('abort', cancel, { once: true });

  let seen = 0;
  start(o.cursor, 0);
  try {
    for (;;) {
      const slot = queue[0] as Slot<T>;
      let page: Page<T>;
      try {
        page = await slot.request;
      } catch (error) {
        throw withResume(error, slot.cursor);
      }
      queue.shift();
      pageNo += 1;
      const next = page.nextCursor;
      const through = slot.before + page.items.length;
      const follow = o.all && next !== null && wanted(through);
      // Its items are new and printed; the cursor it gives is one already followed.
      const repeated = follow && queue[0]?.cursor !== next && requested.has(next);
      if (follow && !repeated) {
        const ahead = queue[0];
        if (ahead === undefined) start(next, through);
        else if (ahead.cursor === next) startAfter(ahead);
        else {
          // The checked answer disagrees with what was peeked: never the case with one body,
          // but the checked cursor is the one to trust.
          cancel();
          queue.length = 0;
          start(next, through);
        }
      }
      const shown = o.maxItems === undefined ? page.items : page.items.slice(0, o.maxItems - seen);
      seen += shown.length;
      // An empty page is no page to print: a table shows nothing for it.
      if (shown.length > 0) {
        notePageCursor(shown, slot.cursor);
        yield shown;
      }
      // Cut short by --max-items: the rest of this page is not printed, and no cursor offered
      // (a page's cursor leads past the items not printed); the caller says more exist.
      if (shown.length < page.items.length) {
        o.onCut?.();
        return;
      }
      if (repeated) {
        throw new ContractError(
          `the server's answer repeats a cursor: page ${pageNo} says there is more, with the cursor of a page already asked for, so the listing would never end`,
        );
      }
      if (next === null && page.hasMore === true && wanted(through)) {
        // Where the cursor is needed (to follow it, or to offer it for --cursor), ending here
        // would print a silently short list with exit 0.
        throw new ContractError(
          `the server's answer says there is more after page ${pageNo} but gives no cursor (meta.nextCursor is null), so the rest of the listing cannot be read`,
        );
      }
      if (next === null) return;
      if (!follow) {
        o.onMore?.(next);
        return;
      }
      if (o.signal?.aborted) throw withResume(new CancelError('interrupted'), next);
    }
  } finally {
    o.signal?.removeEventListener('abort', cancel);
    // Whatever was requested ahead and will not be printed (an error, --max-items, a closed
    // output) is cancelled instead of keeping the process waiting for it.
    for (const slot of queue) slot.controller.abort();
  }
}

function withResume(error: unknown, cursor: string | undefined): unknown {
  // A cursor the server refused (400: invalid, expired, another query's) would be refused again:
  // it is never offered back as the one to resume from (cli.md, Output).
  if (error instanceof ApiError && error.status === 400) return error;
  if (cursor !== undefined && error instanceof RfsError && error.resumeCursor === undefined) error.resumeCursor = cursor;
  return error;
}

/** A page reader for list answers of the form `{data: [...], meta: {hasMore, nextCursor}}`. */
export function listPage<T>(
  path: string,
  schema: Check<{ data: T[]; meta?: { hasMore?: boolean; nextCursor?: string | null } | undefined }>,
): PaginateOptions<T>['page'] {
  return async (client, query, signal, peek) => {
    const onJson = peek ? (value: unknown): void => peek(peekList(value)) : undefined;
    const response = await client.request({ method: 'GET', path, query, schema, signal, ...(onJson ? { onJson } : {}) });
    const body = response.data;
    const hasMore = body.meta?.hasMore === true;
    return { items: body.data, nextCursor: hasMore ? (body.meta?.nextCursor ?? null) : null, hasMore };
  };
}

/** The cursor and item count of an unchecked list answer; no cursor when anything is amiss. */
function peekList(value: unknown): PagePeek {
  const body = typeof value === 'object' && value !== null ? (value as { data?: unknown; meta?: unknown }) : {};
  const meta = typeof body.meta === 'object' && body.meta !== null ? (body.meta as { hasMore?: unknown; nextCursor?: unknown }) : {};
  const count = Array.isArray(body.data) ? body.data.length : 0;
  return { cursor: meta.hasMore === true && typeof meta.nextCursor === 'string' ? meta.nextCursor : null, count };
}
