// rfs config set: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('set')
    .description('save a setting in the profile, checked as its flag would be (the API key is not a setting: rfs auth login)')
    .argument('<key>', 'base-url, output, rate, timeout, max-retries or provider')
    .argument('<value>', 'the value, as its flag takes it')
    .addHelpText('after', examples(['rfs config set output json', 'rfs config set rate 60 --profile ci', 'rfs config set provider crm']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
