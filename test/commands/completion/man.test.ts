// man/rfs.1 is generated from the command tree (src/completion/man.ts) and installed with the
// package (package.json man + files): it must match the commands that exist now.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../../src/commands/topics.js';
import { allCommands } from '../../../src/completion/tree.js';
import { manPage } from '../../../src/completion/man.js';
import { realTree } from './support.js';

const fileOf = (url: URL): string => fileURLToPath(url);
const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  man?: string | string[];
  files: string[];
};
const MAN_FILE = new URL('../../../man/rfs.1', import.meta.url);
const kept = () => readFileSync(MAN_FILE, 'utf8');
/** The date that .TH of the kept page holds: when its text last changed (scripts/man.mjs). */
const keptDate = () => /^\.TH RFS 1 (\S+) /m.exec(kept())?.[1] ?? '';
const generated = () => manPage(realTree(), { version: pkg.version, topics: HELP_TOPICS, date: keptDate() });
/** A tool run in the C locale, as `man` runs on a minimal server. */
const inC = (command: string, args: string[]) =>
  spawnSync(command, args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', MANWIDTH: '80' } });

describe('man/rfs.1', () => {
  it('is up to date with the command tree', () => {
    expect(kept() === generated(), 'man/rfs.1 differs from the command tree: run `npm run completions`').toBe(true);
  });

  it('carries a real date in .TH', () => {
    expect(keptDate()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(keptDate()))).toBe(false);
  });

  it('passes `mandoc -Tlint` with nothing to report, in the C locale', () => {
    const lint = inC('mandoc', ['-Tlint', '-W', 'style', fileOf(MAN_FILE)]);
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
  });

  it('renders in groff in the C locale without a warning', () => {
    const run = inC('groff', ['-man', '-Tascii', '-ww', '-z', fileOf(MAN_FILE)]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('documents every flag of `rfs sync` as man shows it', () => {
    const page = inC('man', ['-l', fileOf(MAN_FILE)]);
    expect(page.status).toBe(0);
    const sync = page.stdout.split(/\n {3}sync status\n/)[0]?.split(/\n {3}sync\n/)[1] ?? '';
    const command = realTree().subcommands.find((c) => c.name === 'sync');
    const flags = (command?.options ?? []).map((o) => o.long).filter((f): f is string => f !== undefined && f !== '--help');
    expect(flags.length).toBeGreaterThanOrEqual(16);
    for (const flag of flags) expect(sync, flag).toMatch(new RegExp(`^ {7}${flag}\\b`, 'm'));
  });

  it('is installed with the package', () => {
    expect(pkg.man).toEqual(['./man/rfs.1']);
    expect(pkg.files).toContain('man');
  });

  it('has a section for every command and every global option, and the exit codes', () => {
    const page = generated();
    const tree = realTree();
    const runs = allCommands(tree).filter(
      (c) => c.path.length > 0 && c.name !== 'help' && (c.subcommands.length === 0 || c.name === 'sync'),
    );
    expect(runs.map((c) => c.path.join(' '))).toContain('sync');
    for (const c of runs) expect(page).toContain(`.SS "${c.path.join(' ').replace(/-/g, '\\-')}"`);
    for (const o of tree.options) expect(page).toContain(`\\fB${(o.long ?? '').replace(/-/g, '\\-')}\\fR`);
    expect(page).toMatch(/\.SH EXIT STATUS\n\.nf\n {2}0 {4}success/);
    expect(page).not.toContain('__complete');
  });
});
