// man/rfs.1 is generated from the command tree (src/completion/man.ts) and installed with the
// package (package.json man + files): it must match the commands that exist now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/commands/topics.js';
import { allCommands } from '../../src/completion/tree.js';
import { manPage } from '../../src/completion/man.js';
import { realTree } from './support.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  man?: string | string[];
  files: string[];
};
const generated = () => manPage(realTree(), { version: pkg.version, topics: HELP_TOPICS });

describe('man/rfs.1', () => {
  it('is up to date with the command tree', () => {
    const kept = readFileSync(new URL('../../man/rfs.1', import.meta.url), 'utf8');
    expect(kept === generated(), 'man/rfs.1 differs from the command tree: run `npm run completions`').toBe(true);
  });

  it('is installed with the package', () => {
    expect(pkg.man).toEqual(['./man/rfs.1']);
    expect(pkg.files).toContain('man');
  });

  it('has a section for every command and every global option, and the exit codes', () => {
    const page = generated();
    const tree = realTree();
    for (const c of allCommands(tree).filter((c) => c.subcommands.length === 0 && c.path.length > 0 && c.name !== 'help'))
      expect(page).toContain(`.SS "${c.path.join(' ').replace(/-/g, '\\-')}"`);
    for (const o of tree.options) expect(page).toContain(`\\fB${(o.long ?? '').replace(/-/g, '\\-')}\\fR`);
    expect(page).toMatch(/\.SH EXIT STATUS\n\.nf\n {2}0 {4}success/);
    expect(page).not.toContain('__complete');
  });
});
