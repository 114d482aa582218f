// The FAILED and PENDING deliveries of the workspace, as far as the API's lists reach (cli.md, deliveries:
// `deliveries summary` and `deliveries watch`). The census itself (a full list is listed again per
// subscription, so one busy subscription does not hide the others) has its one home in
// api/delivery-evidence.ts, which `replay --all-failed` and `doctor` use too; `known` holds the
// live subscriptions and the remembered deleted ones (known-subscriptions.ts), so a deleted
// subscription's FAILED deliveries are found behind a full list. The time and error filters
// (filters.ts) apply to the slices' rows; bounds.ts says what a full slice leaves uncertain.
import type { Delivery } from '../../shared/schemas.js';
import { field } from '../../output/fields.js';

export { type Census, type CensusOptions, type Slice, takeCensus } from '../../api/delivery-evidence.js';

/** What a delivery's last attempt went wrong with, in the server's words (`HTTP 500`), or null before any. */
export function lastErrorOf(d: Delivery): string | null {
  const error = field(d, 'lastError');
  if (error !== '') return error;
  const status = field(d, 'lastResponseStatus');
  return status === '' ? null : `HTTP ${status}`;
}
