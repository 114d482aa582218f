// rfs sync status: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('status')
    .description("the sync journal's state: pending, failing (last error, next try) and parked recordings")
    .option('--journal <path>', 'journal file (default $XDG_STATE_HOME/rfs/sync-<profile>.jsonl)')
    .addHelpText('after', examples(['rfs sync status', 'rfs sync status --journal ./crm-sync.jsonl -o json']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
