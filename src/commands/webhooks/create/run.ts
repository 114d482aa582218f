// rfs webhooks create (cli.md, webhooks): one Idempotency-Key per invocation, reused by every
// retry, so that a lost answer never leaves two subscriptions behind.
import { newIdempotencyKey } from '../../../api/idempotency.js';
import { createWebhook } from '../../../api/webhooks.js';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../../core/errors.js';
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

export function options({ flags }: Input): CreateOptions {
  const url = requireFlag('--url', flags.url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`invalid --url ${JSON.stringify(url)}: expected an absolute https:// URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError(`invalid --url: the scheme must be https (or http to a loopback host), not ${parsed.protocol.replace(':', '')}`);
  }
  const events = flags.event !== undefined && flags.event.length > 0 ? flags.event : [...WEBHOOK_EVENTS];
  const given = flags.idempotencyKey;
  if (given !== undefined && !IdempotencyKey.safeParse(given).success) {
    throw new UsageError('invalid --idempotency-key: use 8 to 255 letters, digits, or . _ : -');
  }
  return { url, events, idempotencyKey: given };
}

export async function run(ctx: Context, { url, events, idempotencyKey }: CreateOptions): Promise<number> {
  const key = idempotencyKey ?? newIdempotencyKey();
  ctx.ui.verbose(`idempotency key: ${key}`);

  const client = await ctx.api();
  const subscription = await createWebhook(client, { url, events: [...new Set(events)] }, key, ctx.signal);
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
