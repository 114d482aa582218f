// `rfs completion bash|zsh|fish`: prints a static completion script generated from the real
// command tree, so the scripts in completions/ and the commands that exist cannot drift apart.
import type { Context } from './context.js';
import { UsageError } from '../core/errors.js';
import { buildProgram, type Dispatch, type Invocation } from '../cli/program.js';
import { HELP_TOPICS } from '../cli/topics.js';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { buildCompletionTree } from '../completion/tree.js';
import { zshScript } from '../completion/zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// The tree is only read, never run: no action of it is ever called.
const noopDispatch: Dispatch = async () => undefined;

export function completionScript(shell: Shell): string {
  const tree = buildCompletionTree(buildProgram(noopDispatch), { helpTopics: Object.keys(HELP_TOPICS) });
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      return zshScript(tree);
    case 'fish':
      return fishScript(tree);
  }
}

function isShell(value: unknown): value is Shell {
  return typeof value === 'string' && (SHELLS as readonly string[]).includes(value);
}

export async function run(ctx: Context, invocation: Invocation): Promise<number> {
  const shell = invocation.args[0];
  // commander checks the choice already; this keeps the type honest if the tree changes.
  if (!isShell(shell)) throw new UsageError(`unknown shell ${JSON.stringify(shell ?? '')}: expected one of ${SHELLS.join(', ')}`);
  ctx.io.stdout.write(completionScript(shell));
  return 0;
}
