// rfs config unset: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('unset')
    .description('remove a setting from the profile, so that its default applies again')
    .argument('<key>', 'base-url, output, rate, timeout, max-retries or provider')
    .addHelpText('after', examples(['rfs config unset rate', 'rfs config unset output --profile ci']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
