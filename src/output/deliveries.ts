// The table of webhook deliveries, shown by `deliveries list` and `deliveries replay --dry-run`.
// Delivery records are "not shown" in api.md: the table reads the sandbox's field names where
// present, and json keeps every field.
import type { Delivery } from '../shared/schemas.js';
import { field } from './fields.js';
import type { Column } from './table.js';
import { formatAge } from './time.js';

/** The columns, with LAST ATTEMPT as an age at `now` (one time style with `recordings list`, issue 26 item 13). */
export function deliveryColumns(now: number): readonly Column<Delivery>[] {
  return [
    { header: 'ID', value: (d) => d.id },
    { header: 'STATUS', value: (d) => field(d, 'status') },
    // Ids are never cut (a cut id cannot be pasted); on a narrow terminal whole columns go.
    // SUBSCRIPTION outlives RECORDING: it is what explains a failure (which receiver, and whether
    // the subscription was deleted), where the recording is the same payload for every receiver.
    { header: 'SUBSCRIPTION', value: (d) => field(d, 'subscriptionId'), dropOrder: 3 },
    { header: 'RECORDING', value: (d) => field(d, 'recordingId'), dropOrder: 2 },
    { header: 'ATTEMPTS', value: (d) => field(d, 'attempts'), align: 'right' },
    { header: 'LAST ATTEMPT', value: (d) => formatAge(field(d, 'lastAttemptAt') || null, now), dropOrder: 1 },
    { header: 'LAST ANSWER', value: (d) => field(d, 'lastResponseStatus') || field(d, 'lastError'), flex: true },
  ];
}
