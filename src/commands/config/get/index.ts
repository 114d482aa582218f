// rfs config get: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('get')
    .description("print one setting's value for this command line (plain text; -o json adds its source)")
    .argument('<key>', 'base-url, output, rate, timeout, max-retries or provider')
    .addHelpText('after', examples(['rfs config get output', 'rfs config get rate --profile ci -o json']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
