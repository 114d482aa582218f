// rfs deliveries list (cli.md, deliveries).
import { listDeliveries } from '../../../api/webhooks.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { numberFlag } from '../../../core/flags.js';
import { deliveryColumns } from '../../../output/deliveries.js';
import { writeList } from '../../../output/list-writer.js';
import { emptyNotice } from '../../notices.js';
import type { Input } from './index.js';

export interface ListOptions {
  status: string | undefined;
  subscriptionId: string | undefined;
  limit: number;
}

export function options({ flags }: Input): ListOptions {
  return {
    status: flags.status,
    subscriptionId: flags.subscription,
    limit: numberFlag('--limit', flags.limit, { min: 1, max: 50, integer: true }),
  };
}

export async function run(ctx: Context, params: ListOptions): Promise<number> {
  const client = await ctx.api();
  const deliveries = await listDeliveries(client, { ...params, signal: ctx.signal });
  const count = await writeList(ctx.io, ctx.globals.output, deliveries, {
    columns: deliveryColumns(ctx.io.now()),
    // What the filter fixes says the same on every row: those columns go first (issue 26).
    fixed: [...(params.status === undefined ? [] : ['STATUS']), ...(params.subscriptionId === undefined ? [] : ['SUBSCRIPTION'])],
    color: ctx.globals.color,
  });
  if (count === 0) emptyNotice(ctx, 'no deliveries match');
  return EXIT.OK;
}
