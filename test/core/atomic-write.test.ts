// The one way rfs replaces a file (config, sync journal compaction, sandbox --data): the data
// and the folder are fsynced, the file gets its mode, and a failure leaves no temporary file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Every fsync, by what was synced: a file (its temporary path) or a folder.
// Hoisted with the mock below, which hands it to the spy when the module is first imported.
const synced = vi.hoisted((): string[] => []);
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const { promisesRecordingSyncs } = await import('../helpers/fs-sync-spy.js');
  const paths = new Map<number, string>();
  return {
    ...fs,
    openSync: (path: string, ...rest: [never]) => {
      const fd = fs.openSync(path, ...rest);
      paths.set(fd, path);
      return fd;
    },
    fsyncSync: (fd: number) => {
      synced.push(paths.get(fd) ?? '?');
      fs.fsyncSync(fd);
    },
    // The asynchronous writer reads fs.promises when it runs (src/core/atomic-write.ts).
    promises: promisesRecordingSyncs(fs.promises, synced),
  };
});

const { writeFileAtomic, writeFileAtomicSync } = await import('../../src/core/atomic-write.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-atomic-'));
  synced.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  [
    'writeFileAtomicSync',
    async (file: string, data: string, mode?: number) => writeFileAtomicSync(file, data, mode === undefined ? {} : { mode }),
  ],
  ['writeFileAtomic', (file: string, data: string, mode?: number) => writeFileAtomic(file, data, mode === undefined ? {} : { mode })],
])('%s', (_name, write) => {
  it('replaces the file, fsyncing the temporary file before the rename and the folder after it', async () => {
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old');
    await write(file, 'new contents');
    expect(readFileSync(file, 'utf8')).toBe('new contents');
    expect(synced).toHaveLength(2);
    expect(synced[0]).toMatch(/\.state\.json\.\d+\.[0-9a-f]+\.tmp$/);
    expect(synced[1]).toBe(dir);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('creates the file 0600 by default, or with the mode asked for', async () => {
    await write(join(dir, 'a'), 'x');
    await write(join(dir, 'b'), 'x', 0o640);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'b')).mode & 0o777).toBe(0o640);
  });

  it('removes the temporary file and leaves the target as it was when the rename fails', async () => {
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true });
    await expect(write(target, 'x')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readdirSync(target)).toEqual(['inside']);
  });

  it('fails without leaving anything when the folder does not exist', async () => {
    await expect(write(join(dir, 'missing', 'file'), 'x')).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
