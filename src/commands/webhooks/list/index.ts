// rfs webhooks list: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('list')
    .alias('ls')
    .description('list webhook subscriptions')
    .option('--limit <n>', 'page size, 1-50 (default: 50)')
    .option('--cursor <cursor>', 'start at this page')
    .option('--all', 'follow cursors through every page')
    .addHelpText('after', examples(['rfs webhooks list', 'rfs webhooks list --all -o ndjson']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
