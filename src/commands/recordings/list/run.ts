// rfs recordings list (cli.md, recordings).
import { listRecordings, type ListRecordingsParams } from '../../../api/recordings.js';
import { Progress } from '../../../batch/progress.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { writeList } from '../../../output/list-writer.js';
import type { Column } from '../../../output/table.js';
import { formatAge, parseWhen } from '../../../output/time.js';
import type { RecordingListItem } from '../../../shared/schemas.js';
import { numberFlag } from '../../../core/flags.js';
import type { Input } from './index.js';
import { cutNotice, emptyNotice, moreNotice } from '../../notices.js';

/** api.md: a page holds at most 100 recordings; --all asks for that many (cli.md, Output). */
const LARGEST_PAGE = 100;
const DEFAULT_PAGE = 50;

/**
 * cli.md's columns. On a narrow terminal whole columns are left out, least important first
 * (README, "Tables"): first those whose value the filter fixes (`fixedColumns`), then MATTER,
 * CLIENT, AUTHOR, UPDATED, PRIORITY, FILED, STATUS; ID and TITLE stay, and TITLE is not cut
 * below 24 cells while another column could go instead.
 */
export function recordingColumns(now: number): Column<RecordingListItem>[] {
  return [
    { header: 'ID', value: (r) => r.id },
    { header: 'TITLE', value: (r) => r.title, flex: true, minWidth: 24 },
    { header: 'STATUS', value: (r) => r.status, dropOrder: 7 },
    { header: 'PRIORITY', value: (r) => r.priority, dropOrder: 5 },
    { header: 'AUTHOR', value: (r) => r.author.name, flex: true, minWidth: 12, dropOrder: 3 },
    { header: 'CLIENT', value: (r) => r.client?.name ?? '-', flex: true, minWidth: 12, dropOrder: 2 },
    { header: 'MATTER', value: (r) => r.matter?.name ?? '-', flex: true, minWidth: 12, dropOrder: 1 },
    { header: 'UPDATED', value: (r) => formatAge(r.updatedAt, now), dropOrder: 4 },
    {
      header: 'FILED',
      value: (r) => (r.syncCount === 0 ? 'no' : `${r.syncCount}× ${formatAge(r.lastSyncedAt, now)}`),
      dropOrder: 6,
    },
  ];
}

/**
 * The columns that say the same on every row of this listing: STATUS, since the list
 * has one status (COMPLETED unless --status); FILED when only unsynced recordings are listed
 * (the default), where it is always `no`.
 */
export function fixedColumns(params: Pick<ListOptions, 'syncState'>): string[] {
  const syncState = params.syncState ?? 'unsynced';
  return ['STATUS', ...(syncState === 'unsynced' ? ['FILED'] : [])];
}

type Block = NonNullable<RecordingListItem['notes']>[number];

/**
 * The line under a row with --include content (cli.md): the text of the first note in
 * sortOrder, or why there is none.
 */
export function noteLine(r: RecordingListItem): string {
  const notes = [...(r.notes ?? [])].sort((a: Block, b: Block) => a.sortOrder - b.sortOrder);
  const first = notes[0];
  if (first === undefined) return '(no notes)';
  if (first.contentStatus !== 'available' || typeof first.contentText !== 'string') return `${first.templateName}: content unavailable`;
  const text = oneLine(first.contentText);
  return text === '' ? `${first.templateName}: (empty)` : text;
}

/**
 * A block's text on one line. Its parts (a heading, a paragraph, a list: apart by a blank line
 * in contentText) run on, but a part that ends without a sentence's punctuation (a heading) is
 * set off from the next by a dash, so `Summary` does not read as `Summary The client…` (issue
 * 33 item 8).
 */
function oneLine(text: string): string {
  const parts = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '');
  return parts.reduce((out, p) => (out === '' ? p : /[.!?:;,]$/.test(out) ? `${out} ${p}` : `${out} — ${p}`), '');
}

export type ListOptions = Omit<ListRecordingsParams, 'signal' | 'onMore'>;

export function options({ flags }: Input, ctx: Context): ListOptions {
  const all = flags.all === true;
  return {
    status: flags.status,
    syncState: flags.syncState,
    updatedSince: flags.updatedSince === undefined ? undefined : parseWhen(flags.updatedSince, ctx.clock.now()),
    include: flags.include,
    limit: numberFlag('--limit', flags.limit, { min: 1, max: LARGEST_PAGE, integer: true }) ?? (all ? LARGEST_PAGE : DEFAULT_PAGE),
    cursor: flags.cursor,
    all,
    maxItems: numberFlag('--max-items', flags.maxItems, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }),
  };
}

export async function run(ctx: Context, params: ListOptions): Promise<number> {
  const client = await ctx.api();
  let more: string | undefined;
  let cut = false;
  const items = listRecordings(client, {
    ...params,
    signal: ctx.signal,
    onMore: (cursor) => {
      more = cursor;
    },
    onCut: () => {
      cut = true;
    },
  });
  // Every page on a terminal's stderr, whatever stdout is (`--all -o json > big.json` too, issue
  // 26): say what is happening until the rows come, and between pages. Silent with --quiet.
  const progress = params.all && ctx.io.stderrIsTTY ? await Progress.start(ctx.ui, 'fetching recordings…') : undefined;
  const count = await writeList(ctx.io, ctx.globals.output, items, {
    columns: recordingColumns(ctx.clock.now()),
    fixed: fixedColumns(params),
    color: ctx.globals.color,
    detail: params.include === undefined ? undefined : noteLine,
    progress,
  });
  // After the list, so that it is the last thing on the screen (cli.md, Output).
  if (more !== undefined) moreNotice(ctx, more, { all: params.all, maxItems: params.maxItems });
  else if (cut && params.maxItems !== undefined) cutNotice(ctx, params.maxItems);
  if (count === 0) emptyNotice(ctx, 'no recordings match');
  return EXIT.OK;
}
