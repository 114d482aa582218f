// rfs deliveries list (cli.md, deliveries). Delivery records are "not shown" in api.md: the
// table reads the sandbox's field names where present, and json keeps every field.
import { listDeliveries } from '../../api/webhooks.js';
import type { Context } from '../context.js';
import { EXIT } from '../../core/errors.js';
import type { Invocation } from '../../cli/program.js';
import { writeList } from '../../output/list-writer.js';
import type { Column } from '../../output/table.js';
import { formatLocalTime } from '../../output/time.js';
import type { Delivery } from '../../shared/schemas.js';
import { field } from '../fields.js';
import { intFlag, stringFlag } from '../flags.js';
import { emptyNotice } from '../notices.js';

export const DELIVERY_COLUMNS: readonly Column<Delivery>[] = [
  { header: 'ID', value: (d) => d.id },
  { header: 'STATUS', value: (d) => field(d, 'status') },
  // Ids are never cut (a cut id cannot be pasted); on a narrow terminal whole columns go.
  { header: 'SUBSCRIPTION', value: (d) => field(d, 'subscriptionId'), dropOrder: 2 },
  { header: 'RECORDING', value: (d) => field(d, 'recordingId'), dropOrder: 3 },
  { header: 'ATTEMPTS', value: (d) => field(d, 'attempts'), align: 'right' },
  { header: 'LAST ATTEMPT', value: (d) => formatLocalTime(field(d, 'lastAttemptAt') || null), dropOrder: 1 },
  { header: 'LAST ANSWER', value: (d) => field(d, 'lastResponseStatus') || field(d, 'lastError'), flex: true },
];

export async function run(ctx: Context, inv: Invocation): Promise<number> {
  const params = {
    status: stringFlag(inv.opts.status),
    subscriptionId: stringFlag(inv.opts.subscription),
    limit: intFlag('--limit', inv.opts.limit, { min: 1, max: 50 }),
  };
  const client = await ctx.api();
  const deliveries = await listDeliveries(client, { ...params, signal: ctx.signal });
  const count = await writeList(ctx.io, ctx.globals.output, deliveries, { columns: DELIVERY_COLUMNS, color: ctx.globals.color, width: ctx.io.columns });
  if (count === 0) emptyNotice(ctx, 'no deliveries match');
  return EXIT.OK;
}
