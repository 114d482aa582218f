// The sandbox's --data saves must survive a power cut like the config and the journal do: the
// state is fsynced before the rename and the folder after it (they were only written and renamed).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';

// Hoisted with the mock below, which hands it to the spy when the module is first imported.
const synced = vi.hoisted((): string[] => []);
// The writer reads fs.promises when it runs (src/core/atomic-write.ts): its open is the one watched.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const { promisesRecordingSyncs } = await import('../helpers/fs-sync-spy.js');
  return {
    ...fs,
    promises: promisesRecordingSyncs(fs.promises, synced),
  };
});

const { Saver } = await import('../../src/sandbox/persistence.js');

const dir = mkdtempSync(join(tmpdir(), 'rfs-sandbox-save-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('fsyncs the saved state and its folder', async () => {
  const file = join(dir, 'state.json');
  const state = { format: 'test' } as unknown as ReturnType<ConstructorParameters<typeof Saver>[1]>;
  const lines: string[] = [];
  const saver = new Saver(
    file,
    () => state,
    (line) => lines.push(line),
  );
  saver.schedule();
  await saver.flush();
  expect(lines).toEqual([]);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ format: 'test' });
  expect(synced).toEqual([expect.stringMatching(/\.state\.json\.\d+\.[0-9a-f]+\.tmp$/), dir]);
});
