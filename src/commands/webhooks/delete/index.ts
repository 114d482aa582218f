// rfs webhooks delete: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('delete')
    .alias('rm')
    .description('remove a subscription (asks first on a terminal)')
    .argument('<id>', 'subscription id')
    .addHelpText('after', examples(['rfs webhooks delete wh_123', 'rfs webhooks delete wh_123 --yes']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
