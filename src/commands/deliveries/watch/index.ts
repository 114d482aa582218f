// rfs deliveries watch: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';
import { budgetHelp, DEFAULT_BUDGET, deliveryFilterFlags } from '../filter-flags.js';

const declare = () =>
  deliveryFilterFlags(new Command('watch'))
    .description(
      'follow deliveries as their status changes: a full-screen view on a terminal (arrows select, r replays, q quits), one ndjson line per change off one',
    )
    .option('--subscription <id>', 'only this subscription')
    .option('--interval <seconds>', 'seconds between polls at least; longer when --budget needs it', '5')
    .option('--budget <n>', budgetHelp('watch'), String(DEFAULT_BUDGET))
    .option('--max-time <seconds>', 'stop after this many seconds (exit 0)')
    .addHelpText(
      'after',
      examples([
        'rfs deliveries watch | jq -c "select(.to == \\"FAILED\\")"',
        'rfs deliveries watch --subscription wh_123 --interval 2 --max-time 600',
        'rfs deliveries watch --since 30m --error 503',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
