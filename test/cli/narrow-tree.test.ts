// A run declares only the noun its command line starts with (src/cli/program.ts): declaring every
// other command cost each page a visible share of its start (bench/RESULTS.md, Start-up). Checked
// on the tree runCli itself builds, which must be given the run's argv.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run.js';
import { bufferIO } from '../helpers/io.js';

vi.mock('../../src/cli/program.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/cli/program.js')>();
  return { ...real, buildProgram: vi.fn(real.buildProgram) };
});

/** The nouns of the tree runCli built for `argv`. */
async function nounsFor(argv: string[]): Promise<string[]> {
  vi.mocked(buildProgram).mockClear();
  await runCli(argv, bufferIO().io);
  const program = vi.mocked(buildProgram).mock.results[0]?.value as CommandUnknownOpts;
  return program.commands.map((c) => c.name()).filter((n) => !n.startsWith('__'));
}

describe('the tree of one run', () => {
  it('holds only the noun the line starts with', async () => {
    expect(await nounsFor(['recordings', 'list', '--help'])).toEqual(['recordings']);
    expect(await nounsFor(['webhooks', 'list', '--help'])).toEqual(['webhooks']);
  });

  it('is whole for a line that starts with anything else', async () => {
    const nouns = await nounsFor(['help']);
    expect(nouns).toContain('recordings');
    expect(nouns).toContain('webhooks');
    expect(nouns.length).toBeGreaterThan(10);
  });
});
