// Notices shared by the list commands.
import type { Context } from './context.js';
import { sanitize } from '../core/sanitize.js';

/** cli.md: a list with more pages than were printed says how to get the next one. */
export function moreNotice(ctx: Context, cursor: string): void {
  ctx.ui.notice(`more results: add --cursor ${sanitize(cursor)} for the next page, or --all for every page`);
}

/** An empty table prints nothing on stdout; on a terminal, say so on stderr (json prints []). */
export function emptyNotice(ctx: Context, message: string): void {
  if (ctx.globals.output === 'table') ctx.ui.notice(message);
}
