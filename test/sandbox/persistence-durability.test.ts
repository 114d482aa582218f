// The sandbox's --data must survive a power cut like the config and the journal do: the data file
// is fsynced before the rename and the folder after it, and each flush of the journal is
// fdatasynced before the changes it holds are acknowledged (src/sandbox/saver.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';

// Hoisted with the mock below, which hands it to the spy when the module is first imported.
const synced = vi.hoisted((): string[] => []);
// The writers read fs.promises when they run (src/core/atomic-write.ts): its open is the one watched.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const { promisesRecordingSyncs } = await import('../helpers/fs-sync-spy.js');
  return {
    ...fs,
    promises: promisesRecordingSyncs(fs.promises, synced),
  };
});

const { Saver } = await import('../../src/sandbox/saver.js');
type Source = ConstructorParameters<typeof Saver>[1];

const dir = mkdtempSync(join(tmpdir(), 'rfs-sandbox-save-'));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('fsyncs the data file and its folder, datasyncs each flush of the journal, and leaves one file at close', async () => {
  const file = join(dir, 'state.json');
  let version = 1;
  const source = {
    snapshot: () => ({ format: 'test', version }),
    batch: (changes: { recording: Set<string> }) => ({ recordings: [...changes.recording].map((id) => ({ id, version })) }),
  } as unknown as Source;
  const lines: string[] = [];
  const saver = new Saver(file, source, (line) => lines.push(line));

  saver.everything();
  await saver.durable();
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ format: 'test', version: 1 });
  const temp = (name: string) => expect.stringMatching(new RegExp(`\\.${name.replace('.', '\\.')}\\.\\d+\\.[0-9a-f]+\\.tmp$`));
  expect(synced).toEqual([temp('state.json'), dir, temp('state.json.journal'), dir]);

  synced.length = 0;
  version = 2;
  saver.note({ kind: 'recording', id: 'rec_1' });
  saver.note({ kind: 'recording', id: 'rec_2' });
  await saver.durable();
  // One flush for both changes: one line, one datasync.
  expect(synced).toEqual([`datasync ${file}.journal`]);
  const journal = readFileSync(`${file}.journal`, 'utf8').split('\n');
  expect(journal).toHaveLength(3);
  expect(JSON.parse(journal[1] as string)).toEqual({
    recordings: [
      { id: 'rec_1', version: 2 },
      { id: 'rec_2', version: 2 },
    ],
  });
  expect(saver.durable()).toBeNull();

  synced.length = 0;
  await saver.close();
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ format: 'test', version: 2 });
  expect(synced).toEqual([temp('state.json'), dir]);
  expect(existsSync(`${file}.journal`)).toBe(false);
  expect(lines).toEqual([]);
});
