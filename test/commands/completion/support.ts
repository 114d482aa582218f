// Shared by the completion tests: the tree of the real program, and a real bash to ask.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

const COMPLETIONS = join(ROOT_DIR, 'completions');
const ZSH_DRIVER = fileURLToPath(new URL('./zsh-complete.zsh', import.meta.url));

/** A HOME of its own for one shell run, removed after it. */
function withHome<T>(use: (home: string) => T): T {
  const home = mkdtempSync(join(tmpdir(), 'rfs-shells-'));
  try {
    return use(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * What a real interactive zsh offers for each line (test/completion/zsh-complete.zsh), with the
 * kept _rfs; `env` adds to its environment (a PATH with rfs on it, RFS_CONFIG_DIR).
 */
export function zshAnswers(lines: string[], env: NodeJS.ProcessEnv = {}): string[][] {
  return withHome((home) => {
    const run = spawnSync('zsh', ['-f', ZSH_DRIVER, COMPLETIONS, join(home, 'zsh-out'), ...lines], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'xterm', ...env },
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`zsh driver exited ${String(run.status)}: ${run.stderr}`);
    return splitAnswers(run.stdout);
  });
}

/** What fish offers for each line (`complete -C`), with the kept rfs.fish; `env` as for zsh. */
export function fishAnswers(lines: string[], env: NodeJS.ProcessEnv = {}): string[][] {
  // Each answer: the candidates (a tab and a description may follow a word), then "--" (fish's
  // echo would take `--` as the end of its options).
  const program = [
    `source ${JSON.stringify(join(COMPLETIONS, 'rfs.fish'))}`,
    ...lines.map((line) => `complete -C ${JSON.stringify(line)} | string replace -r '\\t.*' ''; printf '%s\\n' --`),
  ].join('\n');
  return withHome((home) => {
    const run = spawnSync('fish', ['--no-config', '-c', program], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env },
      timeout: 60_000,
    });
    if (run.status !== 0 || run.stderr !== '') throw new Error(`fish exited ${String(run.status)}: ${run.stderr}`);
    return splitAnswers(run.stdout);
  });
}

function splitAnswers(stdout: string): string[][] {
  const answers: string[][] = [[]];
  for (const line of stdout.split('\n')) {
    if (line === '--') answers.push([]);
    else if (line !== '') answers.at(-1)?.push(line);
  }
  return answers.slice(0, -1);
}
