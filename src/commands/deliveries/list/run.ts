// rfs deliveries list (cli.md, deliveries). With --since, --until or --error (filters.ts) the
// filter is applied to the rows listed; a list that came back full is listed again per
// subscription (live and remembered), which reaches further back, and what stays uncertain is
// said on stderr (bounds.ts). Subscription ids the rows name are remembered.
import { listDeliveries } from '../../../api/webhooks.js';
import type { ApiClient } from '../../../api/types.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { numberFlag } from '../../../core/flags.js';
import { sanitize } from '../../../core/sanitize.js';
import { deliveryColumns } from '../../../output/deliveries.js';
import { field } from '../../../output/fields.js';
import { writeList } from '../../../output/list-writer.js';
import type { Delivery } from '../../../shared/schemas.js';
import { emptyNotice } from '../../notices.js';
import { openRemembered, saveRemembered } from '../../remembered.js';
import { DELIVERY_LIST_ROWS, incompleteNotice, isFull } from '../bounds.js';
import { applyDeliveryFilter, type DeliveryFilter, isFiltering, readDeliveryFilter, selectsByAttempt } from '../filters.js';
import { knowSubscriptions } from '../known-subscriptions.js';
import type { Input } from './index.js';

export interface ListOptions {
  status: string | undefined;
  subscriptionId: string | undefined;
  limit: number;
  filter: DeliveryFilter;
}

export function options({ flags }: Input, ctx: Context): ListOptions {
  return {
    status: flags.status,
    subscriptionId: flags.subscription,
    limit: numberFlag('--limit', flags.limit, { min: 1, max: 50, integer: true }),
    filter: readDeliveryFilter(flags, ctx.clock.now()),
  };
}

/** Newest first, as the API lists: by creation, else by last attempt. */
const newestFirst = (a: Delivery, b: Delivery): number => {
  const key = (d: Delivery): string => field(d, 'createdAt') || field(d, 'lastAttemptAt');
  const [x, y] = [key(a), key(b)];
  return x < y ? 1 : x > y ? -1 : 0;
};

interface Listed {
  rows: Delivery[];
  /** The lists that came back full, in the words of the notice. */
  full: string[];
}

/** The filtered rows: the list asked for, and per subscription when it came back full. */
async function listFiltered(ctx: Context, client: ApiClient, o: ListOptions): Promise<Listed> {
  const list = (subscriptionId: string | undefined) =>
    listDeliveries(client, { status: o.status, subscriptionId, limit: DELIVERY_LIST_ROWS, signal: ctx.signal });
  const what = (subscriptionId: string | undefined): string =>
    `the ${o.status === undefined ? 'deliveries' : o.status} list${subscriptionId === undefined ? '' : ` of ${sanitize(subscriptionId)}`}`;
  const first = await list(o.subscriptionId);
  if (!isFull(first.length) || o.subscriptionId !== undefined) {
    return { rows: first, full: isFull(first.length) ? [what(o.subscriptionId)] : [] };
  }
  const known = await knowSubscriptions(ctx, client);
  const ids = new Set([...known.ids, ...first.map((d) => field(d, 'subscriptionId')).filter((id) => id !== '')]);
  const byId = new Map<string, Delivery>();
  const seen = new Set<string>();
  const full: string[] = [];
  for (const id of [...ids].sort()) {
    const rows = await list(id);
    if (isFull(rows.length)) full.push(what(id));
    for (const d of rows) {
      byId.set(d.id, d);
      seen.add(d.id);
    }
  }
  // Rows of the full list that no subscription's list showed: kept, and the list stays a bound.
  const rest = first.filter((d) => !seen.has(d.id));
  if (rest.length > 0) full.push(what(undefined));
  for (const d of rest) byId.set(d.id, d);
  await known.learn([]);
  return { rows: [...byId.values()].sort(newestFirst), full };
}

export async function run(ctx: Context, o: ListOptions): Promise<number> {
  const client = await ctx.api();
  const filtering = isFiltering(o.filter);
  const listed = filtering
    ? await listFiltered(ctx, client, o)
    : {
        rows: await listDeliveries(client, { status: o.status, subscriptionId: o.subscriptionId, limit: o.limit, signal: ctx.signal }),
        full: [],
      };
  const memory = await openRemembered(ctx);
  memory.sawIds(listed.rows.map((d) => field(d, 'subscriptionId')));
  await saveRemembered(ctx, memory);
  const matching = applyDeliveryFilter(listed.rows, o.filter);
  const shown = matching.slice(0, o.limit);
  const count = await writeList(ctx.io, ctx.globals.output, shown, {
    columns: deliveryColumns(ctx.clock.now(), shown, { byAttempt: selectsByAttempt(o.filter) }),
    // What the filter fixes says the same on every row: those columns go first.
    fixed: [...(o.status === undefined ? [] : ['STATUS']), ...(o.subscriptionId === undefined ? [] : ['SUBSCRIPTION'])],
    color: ctx.globals.color,
  });
  if (count === 0) emptyNotice(ctx, 'no deliveries match');
  if (matching.length > shown.length) {
    ctx.ui.notice(`${matching.length} deliveries match: the newest ${shown.length} are shown (--limit ${o.limit})`);
  }
  const incomplete = incompleteNotice(o.filter, listed.full);
  if (incomplete !== undefined) ctx.ui.notice(incomplete);
  return EXIT.OK;
}
