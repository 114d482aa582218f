// rfs webhooks create (cli.md, webhooks): one Idempotency-Key per invocation, reused by every
// retry, so that a lost answer never leaves two subscriptions behind.
import { newIdempotencyKey } from '../../../api/idempotency.js';
import { createWebhook } from '../../../api/webhooks.js';
import { rememberSubscriptions } from '../../remembered.js';
import type { Context } from '../../context.js';
import { ApiError, EXIT, UsageError } from '../../../core/errors.js';
import { checkDestination, HTTP_ONLY_TO_LOOPBACK } from '../../../core/loopback.js';
import { writeResource } from '../../../output/list-writer.js';
import { formatLocalTime } from '../../../output/time.js';
import { IdempotencyKey, WEBHOOK_EVENTS } from '../../../shared/schemas.js';
import { requireFlag } from '../../flags.js';
import type { Input } from './index.js';

export interface CreateOptions {
  url: string;
  events: string[];
  /** The Idempotency-Key given, or undefined for a new one. */
  idempotencyKey: string | undefined;
}

/**
 * What the service requires of a webhook URL (sandbox.md; api.md gives no field details on a
 * 400, so the advice says it). The local check below accepts exactly the part it can see.
 */
const URL_RULE = `a webhook URL must be https:// to a public address whose name resolves (${HTTP_ONLY_TO_LOOPBACK})`;

export function options({ flags }: Input): CreateOptions {
  const url = requireFlag('--url', flags.url);
  // Credentials in the URL are for the receiver; the service judges them.
  checkDestination(url, { name: '--url', example: 'https://hooks.example.com/rfs', allowCredentials: true, hint: URL_RULE });
  const events = flags.event !== undefined && flags.event.length > 0 ? flags.event : [...WEBHOOK_EVENTS];
  const given = flags.idempotencyKey;
  if (given !== undefined && !IdempotencyKey.safeParse(given).success) {
    throw new UsageError('invalid --idempotency-key: use 8 to 255 letters, digits, or . _ : -');
  }
  return { url, events, idempotencyKey: given };
}

export async function run(ctx: Context, { url, events, idempotencyKey }: CreateOptions): Promise<number> {
  // With -v the key shows once, in the verbose line of each attempt (api/client.ts).
  const key = idempotencyKey ?? newIdempotencyKey();
  const client = await ctx.api();
  let subscription: Awaited<ReturnType<typeof createWebhook>>;
  try {
    subscription = await createWebhook(client, { url, events: [...new Set(events)] }, key, ctx.signal);
  } catch (error) {
    // The URL is the only thing the service can refuse as INVALID_INPUT here that rfs has not
    // already checked (the events are checked by commander, the key's shape above).
    if (error instanceof ApiError && error.status === 400 && error.code === 'INVALID_INPUT' && error.hint === undefined) {
      error.hint = `the service refused the URL: ${URL_RULE}; private, link-local and unresolvable addresses are refused`;
    }
    throw error;
  }
  // Remembered, so that its deliveries are found once it is deleted (cli.md, deliveries).
  if (typeof subscription.id === 'string') await rememberSubscriptions(ctx, [{ id: subscription.id, url: subscription.url }]);
  await writeResource(ctx.io, ctx.globals.output, subscription, {
    color: ctx.globals.color,
    sections: (s) => [
      {
        rows: [
          { label: 'ID', value: s.id ?? null },
          { label: 'URL', value: s.url },
          { label: 'Events', value: s.events },
          { label: 'Created', value: s.createdAt ? formatLocalTime(s.createdAt) : null },
          { label: 'Secret', value: s.secret },
        ],
      },
    ],
  });
  ctx.ui.notice('The secret is shown only this once: store it now (it verifies the signature of every delivery).');
  return EXIT.OK;
}
