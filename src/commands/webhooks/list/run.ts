// rfs webhooks list (cli.md, webhooks). Items are "not shown" in api.md: every field the
// server sends is kept in json output; the table shows the usual ones.
import { paged } from '../../../api/paginate.js';
import { listWebhooks } from '../../../api/webhooks.js';
import { rememberSubscriptions } from '../../remembered.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { writeList } from '../../../output/list-writer.js';
import { formatAge } from '../../../output/time.js';
import { numberFlag } from '../../../core/flags.js';
import type { Input } from './index.js';
import { emptyNotice, moreNotice } from '../../notices.js';
import { field } from '../../../output/fields.js';
import { WEBHOOK_EVENTS } from '../../../shared/vocabulary.js';

const LARGEST_PAGE = 50;

export interface ListOptions {
  limit: number;
  cursor: string | undefined;
  all: boolean;
}

export function options({ flags }: Input): ListOptions {
  // 50 is both the default and the largest page (api.md), so --all asks for the largest page.
  return {
    limit: numberFlag('--limit', flags.limit, { min: 1, max: LARGEST_PAGE, integer: true }) ?? LARGEST_PAGE,
    cursor: flags.cursor,
    all: flags.all === true,
  };
}

export async function run(ctx: Context, { limit, cursor, all }: ListOptions): Promise<number> {
  const client = await ctx.api();
  let more: string | undefined;
  const onMore = (c: string): void => {
    more = c;
  };
  const listing = listWebhooks(client, { limit, cursor, all, signal: ctx.signal, onMore });
  // The subscriptions shown are remembered, so a deleted one's deliveries are found later.
  const seen: { id: string; url: unknown }[] = [];
  const items = paged(
    (async function* () {
      for await (const page of listing.pages()) {
        for (const w of page) if (typeof w.id === 'string') seen.push({ id: w.id, url: w.url });
        yield page;
      }
    })(),
  );
  // CREATED as an age, as `recordings list` shows its times (one time style).
  const now = ctx.clock.now();
  const count = await writeList(ctx.io, ctx.globals.output, items, {
    color: ctx.globals.color,
    // A URL is cut (never below 56 cells) only on a terminal too narrow for it once CREATED, then
    // EVENTS have gone (a cut URL cannot be pasted). While the API knows one event, EVENTS says
    // the same on every row: it goes before anything.
    columns: [
      { header: 'ID', value: (w) => field(w, 'id') },
      { header: 'URL', value: (w) => w.url, flex: true, minWidth: 56 },
      { header: 'EVENTS', value: (w) => w.events.join(', '), dropOrder: 2 },
      { header: 'CREATED', value: (w) => formatAge(field(w, 'createdAt') || null, now), dropOrder: 1 },
    ],
    fixed: WEBHOOK_EVENTS.length === 1 ? ['EVENTS'] : [],
  });
  await rememberSubscriptions(ctx, seen);
  // After the list, so that it is the last thing on the screen (cli.md, Output).
  if (more !== undefined) moreNotice(ctx, more);
  if (count === 0) emptyNotice(ctx, 'no webhook subscriptions');
  return EXIT.OK;
}
