// Bounds shown as bounds (cli.md, deliveries, "At incident scale"): the API lists at most 50
// deliveries, newest first, so what rfs counts from a list that came back full is only what that
// list showed. The words and fields for it live here, for `deliveries list`, `summary`, `watch`
// and `replay --all-failed`:
// - a count from a full list is `50+` (json: `count` with `countIsLowerBound: true`);
// - the oldest attempt seen in a full list is a bound: older ones may exist (`before 8s ago` on a
//   table; json: `oldestIsLowerBound: true`);
// - a filtered result drawn from a full list may be incomplete: a stderr notice
//   (`incompleteNotice`), and json `complete: false` where the output has a place for it.
import { DELIVERY_LIST_ROWS } from '../../shared/api-limits.js';
import { joinWords } from '../../core/words.js';
import { formatAge } from '../../output/time.js';
import type { DeliveryFilter } from './filters.js';
import { describeDeliveryFilter, isFiltering } from './filters.js';

// What a full list is: shared/api-limits.ts, its one home.
export { DELIVERY_LIST_ROWS, isFullDeliveryList as isFull } from '../../shared/api-limits.js';

/** A count that may be a lower bound. */
export interface BoundedCount {
  count: number;
  /** The count came from a list that came back full: there may be more. */
  countIsLowerBound: boolean;
}

/** `12`, or `50+` when the count is a lower bound. */
export function countText(c: BoundedCount): string {
  return c.countIsLowerBound ? `${c.count}+` : String(c.count);
}

/**
 * An oldest attempt as a table shows it, at `now`: `25m ago`, or `before 8s ago` when it is a
 * bound (the list was full, so older attempts may exist); '' when there is none.
 */
export function oldestText(iso: string | null, isLowerBound: boolean, now: number): string {
  const age = formatAge(iso, now);
  return age !== '' && isLowerBound ? `before ${age}` : age;
}

/**
 * The stderr notice of a filtered result drawn from a full list, or undefined when the result is
 * complete (no filter, or no list was full). `lists` names what came back full (`the FAILED list`).
 */
export function incompleteNotice(filter: DeliveryFilter, fullLists: readonly string[]): string | undefined {
  if (!isFiltering(filter) || fullLists.length === 0) return undefined;
  const which = `${joinWords(fullLists)} came`;
  return (
    `may be incomplete: ${which} back full (${DELIVERY_LIST_ROWS} rows, the most the API lists), ` +
    `so older deliveries matching ${describeDeliveryFilter(filter)} may not be shown`
  );
}
