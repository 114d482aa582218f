// rfs recordings list (cli.md, recordings).
import { listRecordings } from '../../api/recordings.js';
import type { Context } from '../../cli/context.js';
import { EXIT } from '../../cli/errors.js';
import type { Invocation } from '../../cli/program.js';
import { writeList } from '../../output/list-writer.js';
import type { Column } from '../../output/table.js';
import { formatLocalTime, parseWhen } from '../../output/time.js';
import type { RecordingListItem } from '../../shared/schemas.js';
import { intFlag, stringFlag } from '../flags.js';
import { moreNotice } from '../notices.js';

export const RECORDING_COLUMNS: readonly Column<RecordingListItem>[] = [
  { header: 'ID', value: (r) => r.id, maxWidth: 28 },
  { header: 'TITLE', value: (r) => r.title, flex: true, maxWidth: 48 },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'PRIORITY', value: (r) => r.priority },
  { header: 'AUTHOR', value: (r) => r.author.name, flex: true, maxWidth: 24 },
  { header: 'CLIENT', value: (r) => r.client?.name ?? '-', flex: true, maxWidth: 24 },
  { header: 'MATTER', value: (r) => r.matter?.name ?? '-', flex: true, maxWidth: 24 },
  { header: 'UPDATED', value: (r) => formatLocalTime(r.updatedAt) },
  { header: 'FILED', value: (r) => (r.syncCount === 0 ? 'no' : `${r.syncCount}× ${formatLocalTime(r.lastSyncedAt)}`) },
];

export async function run(ctx: Context, inv: Invocation): Promise<number> {
  const o = inv.opts;
  const params = {
    status: stringFlag(o.status),
    syncState: stringFlag(o.syncState),
    updatedSince: o.updatedSince === undefined ? undefined : parseWhen(String(o.updatedSince), ctx.io.now()),
    include: stringFlag(o.include),
    limit: intFlag('--limit', o.limit, { min: 1, max: 100 }),
    cursor: stringFlag(o.cursor),
    all: o.all === true,
    maxItems: intFlag('--max-items', o.maxItems, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  };
  const client = await ctx.api();
  const items = listRecordings(client, { ...params, signal: ctx.signal, onMore: (cursor) => moreNotice(ctx, cursor) });
  await writeList(ctx.io, ctx.globals.output, items, { columns: RECORDING_COLUMNS, color: ctx.globals.color, width: ctx.io.columns });
  return EXIT.OK;
}
