// rfs deliveries list: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceOption } from '../../choices.js';
import { DELIVERY_STATUSES } from '../../../shared/vocabulary.js';
import { defineCommand, examples, type Parsed } from '../../define.js';
import { deliveryFilterFlags } from '../filter-flags.js';

const declare = () =>
  deliveryFilterFlags(
    new Command('list')
      .alias('ls')
      .description('list webhook deliveries, newest first')
      .addOption(choiceOption('--status <status>', 'delivery status', DELIVERY_STATUSES))
      .option('--subscription <id>', 'only this subscription')
      .option('--limit <n>', 'rows, 1-50', '50'),
  ).addHelpText(
    'after',
    examples([
      'rfs deliveries list --status FAILED',
      'rfs deliveries list --status FAILED --since 30m --error 503',
      'rfs deliveries list --subscription wh_123 -o json',
    ]),
  );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
