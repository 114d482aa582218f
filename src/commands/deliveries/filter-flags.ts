// The time and error filters of the incident commands (cli.md, deliveries, "Time and error
// filters"), declared once: `deliveries list`, `summary`, `watch` and `replay --all-failed` each
// call `deliveryFilterFlags(command)` so that the four spell, explain and complete them the same
// way. Loaded with every declaration, so it imports commander's types only; the values are read
// by `readDeliveryFilter` (filters.ts) when the command runs.
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { WORKSPACE_REQUESTS_PER_MINUTE } from '../../shared/api-limits.js';

/** cli.md, "watch's budget": a tenth of the workspace's limit, so that sync keeps the rest. */
export const DEFAULT_BUDGET = WORKSPACE_REQUESTS_PER_MINUTE / 10;

/** `--budget <n>` of `watch` and `replay --wait`, said the same way in both. */
export function budgetHelp(who: string): string {
  return `requests a minute ${who} may send, retries included, of the workspace's ${WORKSPACE_REQUESTS_PER_MINUTE} (1-${WORKSPACE_REQUESTS_PER_MINUTE})`;
}

/** What the three flags say in --help (also the words of the man page and completions). */
export const FILTER_FLAG_HELP = {
  since: 'only deliveries whose last attempt is at or after this: ISO 8601 time, or a duration back from now (15m, 2h, 3d)',
  until: 'only deliveries whose last attempt is at or before this: ISO 8601 time, or a duration back from now',
  error: 'only deliveries whose last error contains this text, in any letter case (an HTTP status, an error code, any words)',
} as const;

/**
 * Adds `--since <when>`, `--until <when>` and `--error <text>` to a command's declaration;
 * `when` prefixes their help where they go with another flag (`with --all-failed: `).
 */
// biome-ignore lint/suspicious/noExplicitAny: any command's arguments, as commander's own bound
export function deliveryFilterFlags<A extends any[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>, when = '') {
  return command
    .option('--since <when>', `${when}${FILTER_FLAG_HELP.since}`)
    .option('--until <when>', `${when}${FILTER_FLAG_HELP.until}`)
    .option('--error <text>', `${when}${FILTER_FLAG_HELP.error}`);
}
