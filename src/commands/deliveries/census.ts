// The FAILED and PENDING deliveries of the workspace, as far as the API's lists reach (cli.md, deliveries:
// `deliveries summary` and `deliveries watch`). A list holds at most 50 rows (api.md, Limits):
// when one comes back full, the same status is listed again per subscription, so one busy
// subscription does not hide the others; a list that is still full marks its counts as a lower
// bound. Every request goes through the one client, which paces them within --rate.
// `known` holds the live subscriptions and the remembered deleted ones (known-subscriptions.ts),
// so a deleted subscription's FAILED deliveries are found behind a full list.
// The time and error filters (filters.ts) apply to the slices' rows; bounds.ts says what a full
// slice leaves uncertain.
import type { ApiClient } from '../../api/types.js';
import { ApiError } from '../../core/errors.js';
import { listDeliveries } from '../../api/webhooks.js';
import type { Delivery } from '../../shared/schemas.js';
import { field } from '../../output/fields.js';
import { DELIVERY_LIST_ROWS, isFullDeliveryList } from '../../shared/api-limits.js';

export interface Slice {
  status: string;
  /** The subscription this list was asked for; undefined for the whole workspace's list (or its rest). */
  listedFor?: string | undefined;
  deliveries: Delivery[];
  /** The list came back full: more deliveries of this kind may exist than it shows. */
  full: boolean;
}

export interface CensusOptions {
  statuses: readonly string[];
  /** Only this subscription (one list per status). */
  subscriptionId?: string | undefined;
  /** Subscriptions to list one by one when a status's list comes back full. */
  known: Iterable<string>;
  signal?: AbortSignal | undefined;
}

export interface Census {
  slices: Slice[];
  /**
   * The statuses whose list of the whole workspace came back full: a subscription rfs has not
   * seen (deleted before it ever listed it) may have deliveries of that status behind it, which
   * no list of a known subscription reaches (api/delivery-evidence.ts, mayHideSubscriptions).
   */
  workspaceFull: string[];
  /**
   * Remembered subscription ids whose lists the service refused (a 400 or 404: an id it does not
   * take, a file edited by hand): skipped, for the caller to forget and say so.
   */
  refused: { id: string; why: string }[];
}

/** A refusal of the id itself, as opposed to the key, the rate or the server failing. */
const refusesId = (error: unknown): error is ApiError => error instanceof ApiError && (error.status === 400 || error.status === 404);

/** One list per status, and per subscription for a status whose list was full. */
export async function takeCensus(client: ApiClient, o: CensusOptions): Promise<Census> {
  const slices: Slice[] = [];
  const workspaceFull: string[] = [];
  const refused = new Map<string, string>();
  const list = async (status: string, subscriptionId: string | undefined): Promise<Slice> => {
    const deliveries = await listDeliveries(client, { status, subscriptionId, limit: DELIVERY_LIST_ROWS, signal: o.signal });
    return { status, listedFor: subscriptionId, deliveries, full: isFullDeliveryList(deliveries.length) };
  };
  for (const status of o.statuses) {
    const all = await list(status, o.subscriptionId);
    if (!all.full || o.subscriptionId !== undefined) {
      slices.push(all);
      continue;
    }
    workspaceFull.push(status);
    const ids = new Set(o.known);
    // Ids the rows name are the server's own: a refusal of one of those is no memory's fault.
    const listedIds = new Set<string>();
    for (const d of all.deliveries) {
      const id = field(d, 'subscriptionId');
      if (id !== '') listedIds.add(id);
    }
    for (const id of listedIds) ids.add(id);
    const seen = new Set<string>();
    for (const id of [...ids].sort()) {
      if (refused.has(id)) continue;
      let slice: Slice;
      try {
        slice = await list(status, id);
      } catch (error) {
        if (!refusesId(error) || listedIds.has(id)) throw error;
        refused.set(id, `HTTP ${error.status} ${error.code}`);
        continue;
      }
      for (const d of slice.deliveries) seen.add(d.id);
      slices.push(slice);
    }
    // Rows of the full list that no subscription's list showed (no subscription id): kept, as a lower bound.
    const rest = all.deliveries.filter((d) => !seen.has(d.id));
    if (rest.length > 0) slices.push({ status, listedFor: undefined, deliveries: rest, full: true });
  }
  return { slices, workspaceFull, refused: [...refused].map(([id, why]) => ({ id, why })) };
}

/** What a delivery's last attempt went wrong with, in the server's words (`HTTP 500`), or null before any. */
export function lastErrorOf(d: Delivery): string | null {
  const error = field(d, 'lastError');
  if (error !== '') return error;
  const status = field(d, 'lastResponseStatus');
  return status === '' ? null : `HTTP ${status}`;
}
