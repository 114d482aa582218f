// rfs deliveries summary (cli.md, deliveries; issue 27): the first command of an incident.
import { checkSubscriptions } from '../../../api/subscriptions.js';
import { deletedSubscriptionText } from '../../../api/subscriptions.js';
import { EXIT } from '../../../core/errors.js';
import { writeList } from '../../../output/list-writer.js';
import type { Column } from '../../../output/table.js';
import { formatAge } from '../../../output/time.js';
import type { Context } from '../../context.js';
import { emptyNotice } from '../../notices.js';
import { takeCensus } from '../census.js';
import { countText, groupDeliveries, type SummaryGroup } from './group.js';
import type { Input } from './index.js';

export interface SummaryOptions {
  subscriptionId: string | undefined;
}

export function options({ flags }: Input): SummaryOptions {
  return { subscriptionId: flags.subscription };
}

/** The words a table shows for a deleted subscription's URL. */
const DELETED = '(deleted)';

function columns(now: number): Column<SummaryGroup>[] {
  return [
    { header: 'SUBSCRIPTION', value: (g) => g.subscriptionId },
    { header: 'STATUS', value: (g) => g.status },
    { header: 'COUNT', value: (g) => countText(g), align: 'right' },
    { header: 'LAST ERROR', value: (g) => g.lastError ?? '', flex: true, minWidth: 12 },
    { header: 'OLDEST', value: (g) => formatAge(g.oldestAttemptAt, now), dropOrder: 1 },
    { header: 'NEWEST', value: (g) => formatAge(g.newestAttemptAt, now), dropOrder: 2 },
    // The URL whole (a cut URL names no endpoint); on a narrow terminal the times go first.
    { header: 'URL', value: (g) => (g.exists ? (g.url ?? '') : DELETED) },
  ];
}

export async function run(ctx: Context, o: SummaryOptions): Promise<number> {
  const client = await ctx.api();
  const live = await checkSubscriptions(client, ctx.signal);
  const slices = await takeCensus(client, {
    statuses: ['FAILED', 'PENDING'],
    subscriptionId: o.subscriptionId,
    known: live.byId.keys(),
    signal: ctx.signal,
  });
  const groups = groupDeliveries(slices, live);
  const count = await writeList(ctx.io, ctx.globals.output, groups, { columns: columns(ctx.clock.now()), color: ctx.globals.color });
  if (count === 0) emptyNotice(ctx, 'no FAILED or PENDING deliveries');
  const deleted = groups.filter((g) => !g.exists && g.status === 'FAILED');
  if (deleted.length > 0 && ctx.globals.output === 'table') {
    const ids = [...new Set(deleted.map((g) => g.subscriptionId))];
    ctx.ui.notice(`${ids.map(deletedSubscriptionText).join('; ')}: its FAILED deliveries cannot be replayed`);
  }
  return groups.some((g) => g.status === 'FAILED') ? EXIT.BATCH_FAILED : EXIT.OK;
}
