// The scripts kept in completions/ must be exactly what `rfs completion <shell>` prints for the
// commands that exist now (cli.md, completion).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHELLS } from '../../../src/commands/completion/index.js';
import { completionScript } from './support.js';

const FILES = { bash: 'rfs.bash', zsh: '_rfs', fish: 'rfs.fish' } as const;

describe('completions/ matches the command tree', () => {
  it.each(SHELLS)('completions/%s is up to date', (shell) => {
    const path = new URL(`../../../completions/${FILES[shell]}`, import.meta.url);
    const kept = readFileSync(path, 'utf8');
    const generated = completionScript(shell);
    expect(kept === generated, `completions/${FILES[shell]} differs from \`rfs completion ${shell}\`: run \`npm run completions\``).toBe(
      true,
    );
  });
});
