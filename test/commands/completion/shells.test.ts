// The same questions asked of the three real shells, with the scripts kept in completions/:
// bash (the script alone, as readline calls it), zsh (compinit in an interactive zsh on a
// pseudo-terminal, test/commands/completion/zsh-complete.zsh) and fish (`complete -C`). cli.md,
// completion: enumerated values complete from any letter case, `config set <key> <TAB>` offers
// that setting's values, and a command offers only the flags it accepts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../../src/config/settings.js';
import { ROOT_DIR, bashComplete, realTree } from './support.js';

const COMPLETIONS = join(ROOT_DIR, 'completions');
const ZSH_DRIVER = fileURLToPath(new URL('./zsh-complete.zsh', import.meta.url));
const sorted = (list: readonly string[]): string[] => [...list].sort();

const tree = realTree();
const ownLongFlags = (name: string): string[] =>
  (tree.subcommands.find((c) => c.name === name)?.options ?? []).map((o) => o.long).filter((f): f is string => f !== undefined);
const globalLongFlags = tree.options.map((o) => o.long).filter((f): f is string => f !== undefined && f !== '--help');

/** A command line with the cursor at its end, and what <TAB> must offer there. */
const CASES: [line: string, offered: string[]][] = [
  ['rfs rec', ['recordings']],
  ['rfs recordings list --status com', ['COMPLETED']],
  ['rfs recordings list --status review', ['REVIEW_PENDING']],
  ['rfs recordings list --sync-state UN', ['unsynced']],
  ['rfs -o JS', ['json']],
  ['rfs config set output ', ['json', 'ndjson', 'table']],
  ['rfs config set output N', ['ndjson']],
  ['rfs config set rate ', []],
  ['rfs config set ', [...SETTING_KEYS]],
  ['rfs sandbox --', ownLongFlags('sandbox')],
  ['rfs completion --', ['--help']],
  ['rfs recordings list --qu', ['--quiet']],
];

const work = mkdtempSync(join(tmpdir(), 'rfs-shells-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function zshAnswers(lines: string[]): string[][] {
  const run = spawnSync('zsh', ['-f', ZSH_DRIVER, COMPLETIONS, join(work, 'zsh-out'), ...lines], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, TERM: 'xterm' },
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`zsh driver exited ${String(run.status)}: ${run.stderr}`);
  return splitAnswers(run.stdout);
}

function fishAnswers(lines: string[]): string[][] {
  // Each answer: the candidates (a tab and a description may follow a word), then "--" (fish's
  // echo would take `--` as the end of its options).
  const program = [
    `source ${JSON.stringify(join(COMPLETIONS, 'rfs.fish'))}`,
    ...lines.map((line) => `complete -C ${JSON.stringify(line)} | string replace -r '\\t.*' ''; printf '%s\\n' --`),
  ].join('\n');
  const run = spawnSync('fish', ['--no-config', '-c', program], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work },
    timeout: 60_000,
  });
  if (run.status !== 0 || run.stderr !== '') throw new Error(`fish exited ${String(run.status)}: ${run.stderr}`);
  return splitAnswers(run.stdout);
}

function splitAnswers(stdout: string): string[][] {
  const answers: string[][] = [[]];
  for (const line of stdout.split('\n')) {
    if (line === '--') answers.push([]);
    else if (line !== '') answers.at(-1)?.push(line);
  }
  return answers.slice(0, -1);
}

describe('completion in the real shells', () => {
  it('offers the sandbox its own flags, none of the global ones it refuses', () => {
    expect(ownLongFlags('sandbox')).toContain('--port');
    expect(ownLongFlags('sandbox')).not.toContain('--profile');
    expect(globalLongFlags).toContain('--profile');
  });

  it.each(CASES)('bash: %j', (line, offered) => {
    expect(sorted(bashComplete(line.split(' ')))).toEqual(sorted(offered));
  });

  it('zsh offers the same', () => {
    const answers = zshAnswers(CASES.map(([line]) => line));
    expect(answers.map(sorted)).toEqual(CASES.map(([, offered]) => sorted(offered)));
  });

  it('fish offers the same', () => {
    const answers = fishAnswers(CASES.map(([line]) => line));
    expect(answers.map(sorted)).toEqual(CASES.map(([, offered]) => sorted(offered)));
  });
});
