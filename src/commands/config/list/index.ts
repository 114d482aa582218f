// rfs config list: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('list')
    .description('show every setting: its value for this command line and where it came from (flag, environment, profile, default)')
    .addHelpText('after', examples(['rfs config list', 'rfs config list --profile ci -o json']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
