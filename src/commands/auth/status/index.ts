// rfs auth status: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../../define.js';

const declare = () =>
  new Command('status')
    .description('show every profile (or one) with its redacted key and whether the key works')
    .addHelpText('after', examples(['rfs auth status', 'rfs auth status --profile ci -o json']));

export default defineCommand(declare, () => import('./run.js'));
