// Notices shared by the list commands.
import type { Context } from '../cli/context.js';
import { sanitize } from '../output/sanitize.js';

/** cli.md: a list with more pages than were printed says how to get the next one. */
export function moreNotice(ctx: Context, cursor: string): void {
  ctx.ui.notice(`more results: add --cursor ${sanitize(cursor)} for the next page, or --all for every page`);
}
