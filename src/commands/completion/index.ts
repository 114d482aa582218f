// rfs completion: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceArgument } from '../choices.js';
import { defineCommand, examples, type Parsed } from '../define.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

const declare = () =>
  new Command('completion')
    .description('print the shell completion script')
    .addArgument(choiceArgument('<shell>', 'bash, zsh or fish', SHELLS))
    .addHelpText(
      'after',
      examples(['rfs completion bash > ~/.local/share/bash-completion/completions/rfs', 'rfs completion zsh > "${fpath[1]}/_rfs"']),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'), { standalone: true });
