// Notices shared by the list commands.
import type { Context } from './context.js';
import { sanitize } from '../core/sanitize.js';

/**
 * cli.md: a list with more pages than were printed says how to get the next one. After `--all`
 * (stopped by --max-items) the way on is the cursor alone: --all was given.
 */
export function moreNotice(ctx: Context, cursor: string, o: { all?: boolean; maxItems?: number | undefined } = {}): void {
  // The cursor last, after words that fit 60 columns: on a terminal narrower than the notice the
  // cursor (often 80 characters or more) goes whole onto a line of its own, rather than
  // splitting the sentence around it (README, first example).
  if (o.all === true) {
    const why = o.maxItems === undefined ? '' : ` (stopped at --max-items ${o.maxItems})`;
    ctx.ui.notice(`${MORE_RESULTS}${why}: go on from there with --cursor ${sanitize(cursor)}`);
    return;
  }
  ctx.ui.notice(`${MORE_RESULTS}: every page with --all, the next with --cursor ${sanitize(cursor)}`);
}

const MORE_RESULTS = 'more results';

/** Whether a notice is moreNotice's: one that offers a cursor to go on from. */
export function offersCursor(message: string): boolean {
  return message.startsWith(MORE_RESULTS) && message.includes('--cursor ');
}

/**
 * cli.md, Output: a list cut by --max-items in the middle of a page has more results too, but no
 * cursor resumes there (a page's cursor leads past the items not printed): say so, and how to
 * make the cut fall where a cursor does.
 */
export function cutNotice(ctx: Context, maxItems: number): void {
  ctx.ui.notice(
    `more results: stopped at --max-items ${maxItems} within a page, where no cursor can resume; add --limit ${maxItems} to end the page there and get its cursor`,
  );
}

/** An empty table prints nothing on stdout; on a terminal, say so on stderr (json prints []). */
export function emptyNotice(ctx: Context, message: string): void {
  if (ctx.globals.output === 'table') ctx.ui.notice(message);
}
