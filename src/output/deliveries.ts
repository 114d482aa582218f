// The table of webhook deliveries, shown by `deliveries list` and `deliveries replay --dry-run`,
// and the width rule of a last-error column (`deliveries summary` too). Delivery records are
// "not shown" in api.md: the table reads the sandbox's field names where present, and json
// keeps every field.
import { sanitize } from '../core/sanitize.js';
import type { Delivery } from '../shared/schemas.js';
import { field } from './fields.js';
import { type Column, displayWidth } from './table.js';
import { formatAge } from './time.js';

/** What names an error: `HTTP 503`, an error code (`ECONNREFUSED`, `RATE_LIMIT_EXCEEDED`), a status. */
const ERROR_CODE = /HTTP \d{3}|\b[A-Z][A-Z0-9_]{3,}\b|\b\d{3}\b/;
/** A last-error column is never made wider than this to keep a code whole: columns go first up to it. */
const MOST_FOR_A_CODE = 40;
/** The least a last-error column is cut to (never below its code). */
export const LEAST_ERROR_WIDTH = 12;

/**
 * The readable minimum of a column of error texts (as the table shows them, sanitised): wide
 * enough that no cell is cut before the end of its code (`connect ECONNREFUSED` whole, then `…`),
 * so that a narrow terminal leaves out a column of lesser importance instead (output/table.ts).
 */
export function errorColumnMinWidth(texts: Iterable<string>): number {
  let least = LEAST_ERROR_WIDTH;
  for (const raw of texts) {
    const text = sanitize(raw);
    const code = ERROR_CODE.exec(text);
    if (code === null) continue;
    const through = displayWidth(text.slice(0, code.index + code[0].length));
    // A cut cell ends in `…`: one cell more keeps the code whole, unless nothing follows it.
    const needed = through === displayWidth(text) ? through : through + 1;
    least = Math.max(least, Math.min(needed, MOST_FOR_A_CODE));
  }
  return least;
}

/** What LAST ANSWER shows: the receiver's status, or the error of an attempt that got none. */
const lastAnswer = (d: Delivery): string => field(d, 'lastResponseStatus') || field(d, 'lastError');

/**
 * The columns, with LAST ATTEMPT as an age at `now` (one time style with `recordings list`).
 * `rows`, when given, sets LAST ANSWER's minimum so that no code is cut.
 * Ids are never cut (a cut id cannot be pasted); on a narrow terminal whole columns go, in this
 * order: LAST ATTEMPT, RECORDING, ATTEMPTS, SUBSCRIPTION (and first any column the filter fixes).
 * With `byAttempt` (--since or --until select by the last attempt) LAST ATTEMPT goes last, so
 * that what selected the rows can be seen on them.
 */
export function deliveryColumns(now: number, rows: readonly Delivery[] = [], o: { byAttempt?: boolean } = {}): readonly Column<Delivery>[] {
  return [
    { header: 'ID', value: (d) => d.id },
    { header: 'STATUS', value: (d) => field(d, 'status') },
    // SUBSCRIPTION outlives RECORDING and ATTEMPTS: it is what explains a failure (which
    // receiver, and whether the subscription was deleted), where the recording is the same
    // payload for every receiver; ATTEMPTS (8 cells) goes before SUBSCRIPTION does, which at 80
    // columns keeps SUBSCRIPTION in an unfiltered list.
    { header: 'SUBSCRIPTION', value: (d) => field(d, 'subscriptionId'), dropOrder: 4 },
    { header: 'RECORDING', value: (d) => field(d, 'recordingId'), dropOrder: 2 },
    { header: 'ATTEMPTS', value: (d) => field(d, 'attempts'), align: 'right', dropOrder: 3 },
    { header: 'LAST ATTEMPT', value: (d) => formatAge(field(d, 'lastAttemptAt') || null, now), dropOrder: o.byAttempt === true ? 5 : 1 },
    { header: 'LAST ANSWER', value: lastAnswer, flex: true, minWidth: errorColumnMinWidth(rows.map(lastAnswer)) },
  ];
}
