// `rfs completion bash|zsh|fish`: prints a static completion script generated from the real
// command tree, so the scripts in completions/ and the commands that exist cannot drift apart.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { HELP_TOPICS } from '../topics.js';
import { bashScript } from '../../completion/bash.js';
import { fishScript } from '../../completion/fish.js';
import { buildCompletionTree } from '../../completion/tree.js';
import { zshScript } from '../../completion/zsh.js';
import type { Input, SHELLS } from './index.js';

export type Shell = (typeof SHELLS)[number];

/** The script for `shell`, completing every command of `program` (the tree is only read). */
export function completionScript(shell: Shell, program: CommandUnknownOpts): string {
  const tree = buildCompletionTree(program, { helpTopics: Object.keys(HELP_TOPICS) });
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      return zshScript(tree);
    case 'fish':
      return fishScript(tree);
  }
}

export interface CompletionOptions {
  shell: Shell;
  /** The root of the tree this command was declared in. */
  program: CommandUnknownOpts;
}

export function options({ args: [shell], command }: Input): CompletionOptions {
  let program = command;
  while (program.parent) program = program.parent;
  return { shell, program };
}

export async function run(ctx: Context, { shell, program }: CompletionOptions): Promise<number> {
  ctx.io.stdout.write(completionScript(shell, program));
  return 0;
}
