// What one pass handles, in its order (cli.md, sync): first the answers the journal holds (filed
// without running the command again), then the COMPLETED, unsynced recordings. In the API's
// order they stream page by page, so filing starts with the first page and --max-items stops
// the listing; with --order priority every page is read first, then URGENT, HIGH, MEDIUM, LOW,
// oldest first within each. The pass and its dry run take their items from here.
import { listUnsynced } from '../api/recordings.js';
import type { ApiClient } from '../api/types.js';
import { ApiError } from '../core/errors.js';
import type { RecordingListItem } from '../shared/schemas.js';
import type { ExternalRecord, RecordingState } from './journal.js';

export type SyncOrder = 'listed' | 'priority';

export type PassItem =
  | { from: 'journal'; id: string; record: ExternalRecord; attempts: number }
  /** `n`: its place among the recordings of this pass. */
  | { from: 'listing'; id: string; n: number; title: string };

export interface PassPlan {
  order: SyncOrder;
  /** Recordings to handle in this pass at most (journal refilings included). */
  maxItems?: number;
  signal: AbortSignal;
  /** Told when the listing starts and ends, so that an interruption can say it was listing. */
  onListing?: (listing: boolean) => void;
  /** Left out of the pass and not counted in maxItems (the backoff: waiting, or parked). */
  skip?: (id: string) => boolean;
  /** Told of every recording the listing returns, before any is left out (the metrics). */
  onListed?: (item: { id: string; createdAt: string }) => void;
}

const RANK: Record<RecordingListItem['priority'], number> = { URGENT: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };

/**
 * The items of one pass. `states` is read as the items are taken, so that an answer journaled
 * earlier in the pass is never given to the command again. Each recording comes at most once.
 */
export async function* passItems(client: ApiClient, states: ReadonlyMap<string, RecordingState>, plan: PassPlan): AsyncGenerator<PassItem> {
  const seen = new Set<string>();
  const room = (): boolean => plan.maxItems === undefined || seen.size < plan.maxItems;

  // 1. Answers received before a crash (or a failed filing) are filed first, never re-run.
  for (const [id, state] of [...states]) {
    if (!state.result || !room()) continue;
    seen.add(id);
    yield { from: 'journal', id, record: state.result, attempts: state.attempts };
  }
  if (!room()) return;

  // 2. The listing. A recording handled earlier in this pass (its filing failed, or is still
  // running beside the listing) is listed again: it is skipped, as is an answer left to file.
  const skip = (id: string): boolean => seen.has(id) || states.get(id)?.result !== undefined;
  plan.onListing?.(true);
  try {
    const listed = plan.order === 'priority' ? byPriority(client, plan.signal) : streamed(client, plan);
    for await (const item of listed) {
      plan.onListed?.(item);
      if (!room()) return;
      if (skip(item.id) || plan.skip?.(item.id)) continue;
      seen.add(item.id);
      plan.onListing?.(false);
      yield { from: 'listing', id: item.id, n: seen.size, title: item.title };
      plan.onListing?.(true);
    }
  } finally {
    plan.onListing?.(false);
  }
}

/**
 * The API's order, page by page. At most `maxItems` are listed: fewer than that many are
 * skipped (only recordings of this pass are), so no page past the one needed is read. A cursor
 * lives an hour (api.md): a pass slower than that over one page lists again from the start,
 * where what it already handled is skipped.
 */
async function* streamed(client: ApiClient, plan: PassPlan): AsyncGenerator<RecordingListItem> {
  for (;;) {
    let progressed = false;
    try {
      for await (const item of listUnsynced(client, { signal: plan.signal, maxItems: plan.maxItems })) {
        progressed = true;
        yield item;
      }
      return;
    } catch (error) {
      if (progressed && error instanceof ApiError && error.code === 'INVALID_CURSOR') continue;
      throw error;
    }
  }
}

/** Every page first, then URGENT before HIGH, MEDIUM, LOW; oldest first within each. */
async function* byPriority(client: ApiClient, signal: AbortSignal): AsyncGenerator<Pick<RecordingListItem, 'id' | 'title' | 'createdAt'>> {
  // Only what ordering and handling need is kept: a large backlog costs little memory.
  const all: { id: string; title: string; rank: number; createdAt: string }[] = [];
  for await (const item of listUnsynced(client, { signal })) {
    all.push({ id: item.id, title: item.title, rank: RANK[item.priority], createdAt: item.createdAt });
  }
  all.sort((a, b) => a.rank - b.rank || Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  yield* all;
}
