// rfs auth switch: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('switch')
    .description('make a profile the default (without a name: pick one)')
    .argument('[name]', 'profile name (left out on a terminal: pick one)')
    .addHelpText('after', examples(['rfs auth switch ci', 'rfs auth switch']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
