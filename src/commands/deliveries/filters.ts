// The time and error filters of the incident commands (cli.md, deliveries, "Time and error
// filters"), read and applied in one place for `deliveries list`, `summary`, `watch` and
// `replay --all-failed` (their flags: filter-flags.ts).
//
// The API filters deliveries by status and subscription only, so rfs applies these to the rows
// it lists: a delivery is kept when its last attempt (`lastAttemptAt`) lies in [since, until] and
// its last error contains the `--error` text in any letter case. The last error is what the
// server says of the last attempt: its `lastError` text and its `lastResponseStatus` as
// `HTTP 503`, so `--error 503`, `--error "http 503"`, `--error ECONNREFUSED` or `--error timeout`
// all work. A delivery with no attempt yet has no time and no error: a filter on either leaves it out.
//
// Where a filtered list came back full (50 rows), rows that match may sit behind it: the caller
// lists per subscription where that reaches further, and says what stays uncertain (bounds.ts).
import { UsageError } from '../../core/errors.js';
import { INSTANT, parseIsoTime } from '../../shared/iso-time.js';
import type { Delivery } from '../../shared/schemas.js';
import { field } from '../../output/fields.js';
import { parseWhen } from '../../output/time.js';

/** What `--since`, `--until` and `--error` select; every member absent: no filter. */
export interface DeliveryFilter {
  /** Milliseconds since the epoch: the last attempt at or after it. */
  since?: number;
  /** Milliseconds since the epoch: the last attempt at or before it. */
  until?: number;
  /** Text the last error contains, in any letter case (kept as typed, for messages). */
  error?: string;
}

/** What the declaration of filter-flags.ts parses. */
export interface FilterFlags {
  since?: string | undefined;
  until?: string | undefined;
  error?: string | undefined;
}

const instant = (flag: string, raw: string | undefined, now: number): number | undefined =>
  raw === undefined ? undefined : Date.parse(parseWhen(raw, now, flag));

/**
 * The filter of a command line, checked before anything is sent (UsageError, exit 2): times as
 * `recordings list --updated-since` reads them (ISO 8601, local when no offset is given, or
 * `90s`, `15m`, `2h`, `3d` back from `now`, the run's clock).
 */
export function readDeliveryFilter(flags: FilterFlags, now: number): DeliveryFilter {
  const filter: DeliveryFilter = {};
  const since = instant('--since', flags.since, now);
  const until = instant('--until', flags.until, now);
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  if (since !== undefined && until !== undefined && since > until) {
    throw new UsageError('--since is later than --until: no delivery can match', {
      hint: 'durations count back from now: --since 2h --until 30m is the window from two hours ago to 30 minutes ago',
    });
  }
  if (flags.error !== undefined) {
    if (flags.error.trim() === '') throw new UsageError('--error is blank: give the text to look for in the last error');
    filter.error = flags.error;
  }
  return filter;
}

/** True when the filter selects anything at all (some flag was given). */
export function isFiltering(filter: DeliveryFilter): boolean {
  return filter.since !== undefined || filter.until !== undefined || filter.error !== undefined;
}

/** Whether the rows are selected by their last attempt (--since, --until): a table keeps LAST ATTEMPT then. */
export function selectsByAttempt(filter: DeliveryFilter): boolean {
  return filter.since !== undefined || filter.until !== undefined;
}

/** The delivery's last attempt in milliseconds, or null before any (or an unreadable time). */
export function lastAttemptMs(d: Delivery): number | null {
  const at = field(d, 'lastAttemptAt');
  return at === '' ? null : parseIsoTime(at, INSTANT);
}

/** The text `--error` is matched in: the server's last error and the last answer's status. */
export function lastErrorText(d: Delivery): string {
  const error = field(d, 'lastError');
  const status = field(d, 'lastResponseStatus');
  return [error, status === '' ? '' : `HTTP ${status}`].filter((part) => part !== '').join('\n');
}

/** Whether one delivery passes the filter. */
export function matchesDeliveryFilter(d: Delivery, filter: DeliveryFilter): boolean {
  if (filter.since !== undefined || filter.until !== undefined) {
    const at = lastAttemptMs(d);
    if (at === null) return false;
    if (filter.since !== undefined && at < filter.since) return false;
    if (filter.until !== undefined && at > filter.until) return false;
  }
  if (filter.error !== undefined) {
    if (!lastErrorText(d).toLowerCase().includes(filter.error.toLowerCase())) return false;
  }
  return true;
}

/** `deliveries` that pass the filter, in their order. */
export function applyDeliveryFilter<D extends Delivery>(deliveries: readonly D[], filter: DeliveryFilter): D[] {
  return isFiltering(filter) ? deliveries.filter((d) => matchesDeliveryFilter(d, filter)) : [...deliveries];
}

/** The filter in the words of a notice: `--since 2026-11-27T17:33:00.000Z --error "503"`. */
export function describeDeliveryFilter(filter: DeliveryFilter): string {
  const parts: string[] = [];
  if (filter.since !== undefined) parts.push(`--since ${new Date(filter.since).toISOString()}`);
  if (filter.until !== undefined) parts.push(`--until ${new Date(filter.until).toISOString()}`);
  if (filter.error !== undefined) parts.push(`--error ${JSON.stringify(filter.error)}`);
  return parts.join(' ');
}
