// rfs deliveries summary (cli.md, deliveries): the first command of an incident.
// Every list the API allows (census.ts), per live and remembered subscription behind a full
// list, so a deleted subscription's FAILED deliveries are counted; bounds flagged (bounds.ts);
// --since, --until and --error applied to the rows listed (filters.ts).
import { hiddenSubscriptionsNotice } from '../../../api/delivery-evidence.js';
import { deletedSubscriptionText } from '../../../api/subscriptions.js';
import { EXIT } from '../../../core/errors.js';
import { sanitize } from '../../../core/sanitize.js';
import { errorColumnMinWidth } from '../../../output/deliveries.js';
import { writeList } from '../../../output/list-writer.js';
import type { Column } from '../../../output/table.js';
import { formatAge } from '../../../output/time.js';
import type { Context } from '../../context.js';
import { emptyNotice } from '../../notices.js';
import { countText, incompleteNotice, oldestText } from '../bounds.js';
import { takeCensus, type Slice } from '../census.js';
import { applyDeliveryFilter, type DeliveryFilter, readDeliveryFilter } from '../filters.js';
import { knowSubscriptions } from '../known-subscriptions.js';
import { groupDeliveries, type SummaryGroup } from './group.js';
import type { Input } from './index.js';

export interface SummaryOptions {
  subscriptionId: string | undefined;
  filter: DeliveryFilter;
}

export function options({ flags }: Input, ctx: Context): SummaryOptions {
  return { subscriptionId: flags.subscription, filter: readDeliveryFilter(flags, ctx.clock.now()) };
}

/** The words a table shows for a deleted subscription's URL. */
const DELETED = '(deleted)';

function columns(now: number, groups: readonly SummaryGroup[]): Column<SummaryGroup>[] {
  return [
    { header: 'SUBSCRIPTION', value: (g) => g.subscriptionId },
    // Said on every row when every group has one status (FAILED): then it goes last, before
    // LAST ERROR would be cut into its code (60 columns).
    { header: 'STATUS', value: (g) => g.status, ...(new Set(groups.map((g) => g.status)).size === 1 ? { dropOrder: 4 } : {}) },
    { header: 'COUNT', value: (g) => countText(g), align: 'right' },
    // Never cut before its code (`connect ECONNREFUSED…`): columns go first.
    {
      header: 'LAST ERROR',
      value: (g) => g.lastError ?? '',
      flex: true,
      minWidth: errorColumnMinWidth(groups.map((g) => g.lastError ?? '')),
    },
    // "Since when?" outlives the URL (the id says which subscription) and NEWEST.
    { header: 'OLDEST', value: (g) => oldestText(g.oldestAttemptAt, g.oldestIsLowerBound, now), dropOrder: 3 },
    { header: 'NEWEST', value: (g) => formatAge(g.newestAttemptAt, now), dropOrder: 1 },
    // The URL whole (a cut URL names no endpoint); the id says which subscription, and a deleted
    // one is also named on stderr.
    { header: 'URL', value: (g) => (g.exists ? (g.url ?? '') : DELETED), dropOrder: 2 },
  ];
}

/** `the FAILED list`, `the FAILED list of wh_…`: the lists that came back full. */
export function fullLists(slices: readonly Slice[]): string[] {
  return slices.filter((s) => s.full).map((s) => `the ${s.status} list${s.listedFor === undefined ? '' : ` of ${sanitize(s.listedFor)}`}`);
}

export async function run(ctx: Context, o: SummaryOptions): Promise<number> {
  const client = await ctx.api();
  const known = await knowSubscriptions(ctx, client);
  const {
    slices: listed,
    workspaceFull,
    refused,
  } = await takeCensus(client, {
    statuses: ['FAILED', 'PENDING'],
    subscriptionId: o.subscriptionId,
    known: known.ids,
    signal: ctx.signal,
  });
  await known.learn(listed, refused);
  const slices = listed.map((s) => ({ ...s, deliveries: applyDeliveryFilter(s.deliveries, o.filter) }));
  // Full lists of the whole workspace may hide a subscription rfs has not seen (cli.md, "Evidence, not inference").
  const hidden = workspaceFull.length > 0;
  const groups = groupDeliveries(slices, known).map((g) => ({ ...g, othersMayBeHidden: hidden }));
  const count = await writeList(ctx.io, ctx.globals.output, groups, {
    columns: columns(ctx.clock.now(), groups),
    color: ctx.globals.color,
  });
  if (count === 0) emptyNotice(ctx, 'no FAILED or PENDING deliveries');
  if (hidden) ctx.ui.notice(hiddenSubscriptionsNotice(workspaceFull));
  const incomplete = incompleteNotice(o.filter, fullLists(listed));
  if (incomplete !== undefined) ctx.ui.notice(incomplete);
  const deleted = groups.filter((g) => !g.exists && g.status === 'FAILED');
  if (deleted.length > 0 && ctx.globals.output === 'table') {
    const ids = [...new Set(deleted.map((g) => g.subscriptionId))];
    ctx.ui.notice(`${ids.map(deletedSubscriptionText).join('; ')}: its FAILED deliveries cannot be replayed`);
  }
  return groups.some((g) => g.status === 'FAILED') ? EXIT.BATCH_FAILED : EXIT.OK;
}
