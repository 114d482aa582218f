// A sandbox that cannot work as asked is refused at start (issue 23): the CLI exits 2, the
// library's promise rejects. Before, it served anyway and the trouble showed only later.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxStartError, startSandbox } from '../../src/sandbox/index.js';
import { runRfs } from '../helpers/child.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Item 4: every change answered 500 yet stayed in memory, and SIGTERM exited 0 having saved nothing.
describe('--data in a folder that does not exist', () => {
  it('is refused by startSandbox, naming the folder', async () => {
    const file = join(dir, 'missing', 'x.json');
    const error = await startSandbox({ port: 0, seed: 's', dataFile: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as Error).message).toBe(`cannot write the data file ${file}: its folder ${join(dir, 'missing')} does not exist`);
  });

  it('makes rfs sandbox exit 2 before it prints its JSON line', async () => {
    const file = join(dir, 'nowhere', 'x.json');
    const run = await runRfs(['sandbox', '--port', '0', '--seed', '1', '--data', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`cannot write the data file ${file}: its folder ${join(dir, 'nowhere')} does not exist`);
  });
});
