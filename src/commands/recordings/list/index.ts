// rfs recordings list: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceOption } from '../../choices.js';
import { INCLUDES, RECORDING_STATUSES, SYNC_STATES } from '../../../shared/vocabulary.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('list')
    .alias('ls')
    .description('list recordings (by default COMPLETED and not yet filed)')
    .addOption(choiceOption('--status <status>', 'recording status', RECORDING_STATUSES).default('COMPLETED'))
    .addOption(choiceOption('--sync-state <state>', 'filing state', SYNC_STATES).default('unsynced'))
    .option('--updated-since <when>', 'ISO 8601 time, or a duration back from now: 90s, 15m, 24h, 7d')
    .addOption(choiceOption('--include <what>', 'add block content to each item', INCLUDES))
    .option('--limit <n>', 'page size, 1-100 (default: 50; 100 with --all)')
    .option('--cursor <cursor>', 'start at this page (meta.nextCursor of an earlier call)')
    .option('--all', 'follow cursors through every page')
    .option('--max-items <n>', 'stop after this many items (with --all)')
    .addHelpText(
      'after',
      examples([
        'rfs recordings list',
        'rfs recordings list --status ARCHIVED --sync-state all --updated-since 2025-06-01',
        'rfs recordings list --all -o ndjson | jq -r .id',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
