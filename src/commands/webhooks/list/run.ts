// rfs webhooks list (cli.md, webhooks). Items are "not shown" in api.md: every field the
// server sends is kept in json output; the table shows the usual ones.
import { listWebhooks } from '../../../api/webhooks.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { writeList } from '../../../output/list-writer.js';
import { formatLocalTime } from '../../../output/time.js';
import { numberFlag } from '../../../core/flags.js';
import type { Input } from './index.js';
import { emptyNotice, moreNotice } from '../../notices.js';
import { field } from '../../../output/fields.js';

export interface ListOptions {
  limit: number;
  cursor: string | undefined;
  all: boolean;
}

export function options({ flags }: Input): ListOptions {
  return { limit: numberFlag('--limit', flags.limit, { min: 1, max: 50, integer: true }), cursor: flags.cursor, all: flags.all === true };
}

export async function run(ctx: Context, { limit, cursor, all }: ListOptions): Promise<number> {
  const client = await ctx.api();
  const items = listWebhooks(client, { limit, cursor, all, signal: ctx.signal, onMore: (c) => moreNotice(ctx, c) });
  const count = await writeList(ctx.io, ctx.globals.output, items, {
    color: ctx.globals.color,
    width: ctx.io.columns,
    columns: [
      { header: 'ID', value: (w) => field(w, 'id') },
      { header: 'URL', value: (w) => w.url, flex: true },
      { header: 'EVENTS', value: (w) => w.events.join(', ') },
      { header: 'CREATED', value: (w) => formatLocalTime(field(w, 'createdAt') || null) },
    ],
  });
  if (count === 0) emptyNotice(ctx, 'no webhook subscriptions');
  return EXIT.OK;
}
