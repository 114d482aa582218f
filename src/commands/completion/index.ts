// rfs completion: the declaration; the code is in run.ts.
import { Argument, Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../define.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

const declare = () =>
  new Command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      examples(['rfs completion bash > ~/.local/share/bash-completion/completions/rfs', 'rfs completion zsh > "${fpath[1]}/_rfs"']),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
