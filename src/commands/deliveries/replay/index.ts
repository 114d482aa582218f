// rfs deliveries replay: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';
import { budgetHelp, DEFAULT_BUDGET, deliveryFilterFlags } from '../filter-flags.js';

const declare = () =>
  deliveryFilterFlags(
    new Command('replay')
      .description('send deliveries again, by id or every FAILED one')
      .argument('[delivery-id...]', 'deliveries to replay')
      .option('--all-failed', 'replay every FAILED delivery, listing again until none is left that this run has not replayed')
      .option('--subscription <id>', 'with --all-failed: only this subscription')
      .option('--dry-run', 'with --all-failed: only list what would be replayed')
      .option('--max <n>', 'with --all-failed: replay at most this many')
      .option('--wait', "after replaying, wait until a list shows each replayed delivery's outcome; exit 0 only when all SUCCEEDED")
      .option('--wait-timeout <seconds>', 'with --wait: give up after this long (default 300)')
      .option('--budget <n>', `with --wait: ${budgetHelp('the wait')} (default ${DEFAULT_BUDGET})`),
    'with --all-failed: ',
  ).addHelpText(
    'after',
    examples([
      'rfs deliveries replay dlv_123 dlv_456',
      'rfs deliveries replay --all-failed --dry-run',
      'rfs deliveries replay --all-failed --since 30m --error 503 --dry-run',
      'rfs deliveries replay --all-failed --yes',
      'rfs deliveries replay --all-failed --yes --max 200 --wait',
    ]),
  );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
