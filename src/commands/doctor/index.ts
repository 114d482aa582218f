// rfs doctor: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../define.js';

const declare = () =>
  new Command('doctor')
    .description('check the config file, profile, key, connection, clock, failed deliveries and sync journal; changes nothing')
    .addHelpText(
      'after',
      `${examples(['rfs doctor', 'rfs doctor --profile ci -o json'])}
Results: ok, warn, fail, skipped. Exit 0 when nothing failed; otherwise the exit code of the
first failure: 2 local setup, 3 key, 6 network, 7 a broken answer.
`,
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
