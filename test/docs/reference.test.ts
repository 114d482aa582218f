// docs/reference.md is what the command declarations say now, as
// completions/ and man/rfs.1 are (test/commands/completion/drift.test.ts, man.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { referencePage } from '../../src/cli/reference.js';

const KEPT = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8');

describe('docs/reference.md', () => {
  it('is what the command declarations generate (npm run completions writes it)', async () => {
    const generated = await referencePage();
    expect(KEPT === generated, 'docs/reference.md differs from the declarations: run `npm run completions`').toBe(true);
  });

  it('has a section for every command, with its usage line and flags', () => {
    for (const command of ['recordings list', 'deliveries summary', 'sync status', 'webhooks listen', 'sandbox']) {
      const start = KEPT.indexOf(`\n## rfs ${command}\n`);
      expect(start, command).toBeGreaterThan(0);
      expect(KEPT.slice(start, start + 400)).toContain(`Usage: rfs ${command}`);
    }
  });
});
