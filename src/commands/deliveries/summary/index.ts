// rfs deliveries summary: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';
import { deliveryFilterFlags } from '../filter-flags.js';

const declare = () =>
  deliveryFilterFlags(
    new Command('summary')
      .description('FAILED and PENDING deliveries grouped by subscription and last error (exit 8 while any is FAILED)')
      .option('--subscription <id>', 'only this subscription'),
  ).addHelpText(
    'after',
    examples([
      'rfs deliveries summary',
      'rfs deliveries summary --since 30m --error 503',
      'rfs deliveries summary --subscription wh_123 -o json',
      'rfs deliveries summary -q -o json >/dev/null || echo "deliveries are failing"',
    ]),
  );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
