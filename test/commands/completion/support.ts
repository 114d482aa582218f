// Shared by the completion tests: the tree of the real program, and a real bash to ask.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../../../src/cli/program.js';
import { completionScript as scriptFor, type Shell } from '../../../src/commands/completion/run.js';
import { HELP_TOPICS } from '../../../src/commands/topics.js';
import { buildCompletionTree, type CompletionCommand } from '../../../src/completion/tree.js';

export const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
export const BASH_SCRIPT = fileURLToPath(new URL('../../../completions/rfs.bash', import.meta.url));

export function realTree(): CompletionCommand {
  return buildCompletionTree(
    buildProgram(async () => undefined),
    { helpTopics: Object.keys(HELP_TOPICS) },
  );
}

/** What `rfs completion <shell>` prints for the real program. */
export function completionScript(shell: Shell): string {
  return scriptFor(
    shell,
    buildProgram(async () => undefined),
  );
}

/**
 * What bash offers for the last word of `words` (the word being completed, possibly ''), using
 * only the script: no rc files, no bash-completion package.
 */
export function bashComplete(words: string[], o: { cwd?: string; script?: string; env?: NodeJS.ProcessEnv } = {}): string[] {
  const program = [
    'source "$1" || exit 97',
    'shift',
    'COMP_WORDS=("$@")',
    'COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))',
    'COMP_LINE="${COMP_WORDS[*]}"',
    'COMP_POINT=${#COMP_LINE}',
    '_rfs || exit 98',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program, 'bash', o.script ?? BASH_SCRIPT, ...words], {
    cwd: o.cwd ?? ROOT_DIR,
    encoding: 'utf8',
    env: o.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  if (result.status !== 0 || result.stderr !== '') {
    throw new Error(`bash exited ${String(result.status)}: ${result.stderr}`);
  }
  return result.stdout.split('\n').filter((line) => line !== '');
}
