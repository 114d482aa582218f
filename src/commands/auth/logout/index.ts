// rfs auth logout: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../../define.js';

const declare = () =>
  new Command('logout')
    .description('forget a profile and its key')
    .addHelpText('after', examples(['rfs auth logout', 'rfs auth logout --profile ci']));

export default defineCommand(declare, () => import('./run.js'));
