// rfs recordings list (cli.md, recordings).
import { listRecordings, type ListRecordingsParams } from '../../../api/recordings.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { writeList } from '../../../output/list-writer.js';
import type { Column } from '../../../output/table.js';
import { formatAge, parseWhen } from '../../../output/time.js';
import type { RecordingListItem } from '../../../shared/schemas.js';
import { numberFlag } from '../../../core/flags.js';
import type { Input } from './index.js';
import { emptyNotice, moreNotice } from '../../notices.js';

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

export type ListOptions = Omit<ListRecordingsParams, 'signal' | 'onMore'>;

export function options({ flags }: Input, ctx: Context): ListOptions {
  return {
    status: flags.status,
    syncState: flags.syncState,
    updatedSince: flags.updatedSince === undefined ? undefined : parseWhen(flags.updatedSince, ctx.io.now()),
    include: flags.include,
    limit: numberFlag('--limit', flags.limit, { min: 1, max: 100, integer: true }),
    cursor: flags.cursor,
    all: flags.all === true,
    maxItems: numberFlag('--max-items', flags.maxItems, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }),
  };
}

export async function run(ctx: Context, params: ListOptions): Promise<number> {
  const client = await ctx.api();
  const items = listRecordings(client, { ...params, signal: ctx.signal, onMore: (cursor) => moreNotice(ctx, cursor) });
  const count = await writeList(ctx.io, ctx.globals.output, items, {
    columns: recordingColumns(ctx.io.now()),
    color: ctx.globals.color,
    width: ctx.io.columns,
  });
  if (count === 0) emptyNotice(ctx, 'no recordings match');
  return EXIT.OK;
}
