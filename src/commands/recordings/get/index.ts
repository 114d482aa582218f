// rfs recordings get: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceOption } from '../../choices.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('get')
    .description('show one recording: metadata, filing history, notes, documents and transcript')
    .argument('<id>', 'recording id')
    .addOption(choiceOption('--include <what>', 'also return the rich-text JSON of each block', ['contentJson'] as const))
    .addHelpText('after', examples(['rfs recordings get rec_123', 'rfs recordings get rec_123 --include contentJson -o json']));

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
