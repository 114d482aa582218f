// rfs deliveries replay: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('replay')
    .description('send deliveries again, by id or every FAILED one')
    .argument('[delivery-id...]', 'deliveries to replay')
    .option('--all-failed', 'replay every FAILED delivery')
    .option('--subscription <id>', 'with --all-failed: only this subscription')
    .option('--dry-run', 'with --all-failed: only list what would be replayed')
    .addHelpText(
      'after',
      examples([
        'rfs deliveries replay dlv_123 dlv_456',
        'rfs deliveries replay --all-failed --dry-run',
        'rfs deliveries replay --all-failed --yes',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
