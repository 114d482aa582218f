// rfs auth login: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('login')
    .description('save an API key in a profile (asks for it, masked; or reads it from stdin)')
    .option('--with-key', 'read the key from stdin instead of asking (for scripts)')
    .addHelpText(
      'after',
      examples(['rfs auth login', 'printf %s "$KEY" | rfs auth login --with-key --profile ci --base-url https://api.example.com']),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
