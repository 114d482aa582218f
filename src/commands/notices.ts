// Notices shared by the list commands.
import type { Context } from './context.js';
import { sanitize } from '../core/sanitize.js';

/**
 * cli.md: a list with more pages than were printed says how to get the next one. After `--all`
 * (stopped by --max-items) the way on is the cursor alone: --all was given.
 */
export function moreNotice(ctx: Context, cursor: string, o: { all?: boolean; maxItems?: number | undefined } = {}): void {
  if (o.all === true) {
    const why = o.maxItems === undefined ? '' : ` (stopped at --max-items ${o.maxItems})`;
    ctx.ui.notice(`more results${why}: add --cursor ${sanitize(cursor)} to go on from there`);
    return;
  }
  ctx.ui.notice(`more results: add --cursor ${sanitize(cursor)} for the next page, or --all for every page`);
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
