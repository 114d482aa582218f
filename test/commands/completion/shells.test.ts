// The same questions asked of the three real shells, with the scripts kept in completions/:
// bash (the script alone, as readline calls it), zsh (compinit in an interactive zsh on a
// pseudo-terminal, test/commands/completion/zsh-complete.zsh) and fish (`complete -C`). cli.md,
// completion: enumerated values complete from any letter case, `config set <key> <TAB>` offers
// that setting's values, and a command offers only the flags it accepts.
import { describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../../src/config/settings.js';
import { bashComplete, fishAnswers, realTree, zshAnswers } from './support.js';

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
