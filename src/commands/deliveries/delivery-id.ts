// What may be a delivery id. The API spec gives delivery ids no format (api.md, "Webhook
// delivery": "an identifier"), so rfs refuses only what cannot be one before any request
// (cli.md, exit 2: local input, nothing sent): an id that names no delivery, or one that would
// change the request's path (a '/', '?' or '#') or could not be read back from a terminal.
import { UsageError } from '../../core/errors.js';
import { sanitize } from '../../core/sanitize.js';

/** Far above any id a service hands out (the sandbox's are 24 characters). */
export const MAX_DELIVERY_ID_LENGTH = 200;

/** Why `id` cannot be a delivery id, or undefined. */
export function deliveryIdProblem(id: string): string | undefined {
  if (id === '') return 'it is empty';
  if (id.length > MAX_DELIVERY_ID_LENGTH) return `it is longer than ${MAX_DELIVERY_ID_LENGTH} characters`;
  if (/[/?#]/.test(id)) return "it holds '/', '?' or '#', which would change the request's path";
  // Spaces, line breaks, control and invisible format characters (\p{Cf}: bidi controls,
  // zero-width characters): no id holds them, and a pasted one that does would look like another.
  if (/[\s\p{Cc}\p{Cf}]/u.test(id)) return 'it holds whitespace, a control character or an invisible one';
  return undefined;
}

/** Throws a UsageError naming the first id that cannot be a delivery id. */
export function checkDeliveryIds(ids: readonly string[]): void {
  for (const id of ids) {
    const why = deliveryIdProblem(id);
    if (why === undefined) continue;
    const shown = id.length > 40 ? `${id.slice(0, 40)}…` : id;
    throw new UsageError(`not a delivery id: "${sanitize(shown)}" (${why}); nothing was sent`);
  }
}
