// The checks generated from the zod schemas are committed (scripts/checks.mjs says why): they
// must be what the schemas give now, so a schema changed without `node scripts/checks.mjs`
// fails here (and `npm run build` refuses to bundle stale ones).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, TARGETS } from '../../scripts/checks.mjs';
import * as storedConfig from '../../src/config/stored-config.js';
import * as schemas from '../../src/shared/schemas.js';

const SOURCES: Record<string, unknown> = { 'src/shared/schemas.ts': schemas, 'src/config/stored-config.ts': storedConfig };

describe('the generated checks', () => {
  it.each(TARGETS.map((t) => [t.output, t] as const))('%s is what its zod schemas give now', (output, target) => {
    const committed = readFileSync(new URL(`../../${output}`, import.meta.url), 'utf8');
    expect(committed).toBe(generate(target, SOURCES[target.source]));
  });

  it('changes when a schema does (the comparison can fail)', () => {
    const target = TARGETS.find((t) => t.source === 'src/shared/schemas.ts');
    const changed = { ...schemas, ProblemDetails: schemas.WebhookList };
    expect(generate(target, changed)).not.toBe(generate(target, schemas));
  });

  it('refuses a schema it has no generator for, naming the kind', async () => {
    const z = await import('zod/mini');
    const target = TARGETS.find((t) => t.source === 'src/config/stored-config.ts');
    expect(() => generate(target, { StoredConfig: z.looseObject({ at: z.date() }) })).toThrow(/no generator for the zod type date/);
  });
});
