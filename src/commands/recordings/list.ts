// rfs recordings list (cli.md, recordings).
import { listRecordings } from '../../api/recordings.js';
import type { Context } from '../context.js';
import { EXIT } from '../../core/errors.js';
import type { Invocation } from '../../cli/program.js';
import { writeList } from '../../output/list-writer.js';
import type { Column } from '../../output/table.js';
import { formatAge, parseWhen } from '../../output/time.js';
import type { RecordingListItem } from '../../shared/schemas.js';
import { intFlag, stringFlag } from '../flags.js';
import { emptyNotice, moreNotice } from '../notices.js';

/** cli.md's columns; on a narrow terminal MATTER, CLIENT and AUTHOR go first, in that order. */
export function recordingColumns(now: number): Column<RecordingListItem>[] {
  return [
    { header: 'ID', value: (r) => r.id, maxWidth: 28 },
    { header: 'TITLE', value: (r) => r.title, flex: true, maxWidth: 48 },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'PRIORITY', value: (r) => r.priority },
    { header: 'AUTHOR', value: (r) => r.author.name, flex: true, maxWidth: 24, dropOrder: 3 },
    { header: 'CLIENT', value: (r) => r.client?.name ?? '-', flex: true, maxWidth: 24, dropOrder: 2 },
    { header: 'MATTER', value: (r) => r.matter?.name ?? '-', flex: true, maxWidth: 24, dropOrder: 1 },
    { header: 'UPDATED', value: (r) => formatAge(r.updatedAt, now) },
    { header: 'FILED', value: (r) => (r.syncCount === 0 ? 'no' : `${r.syncCount}× ${formatAge(r.lastSyncedAt, now)}`) },
  ];
}

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
  const count = await writeList(ctx.io, ctx.globals.output, items, { columns: recordingColumns(ctx.io.now()), color: ctx.globals.color, width: ctx.io.columns });
  if (count === 0) emptyNotice(ctx, 'no recordings match');
  return EXIT.OK;
}
