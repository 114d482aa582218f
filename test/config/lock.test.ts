// The lock file that serialises changes to the config (core/lock.ts): a lock
// left by a dead process, or too old, is taken over; a live owner's is waited for, then
// refused; a lock taken over from this process is not deleted by it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockBusyError, tryLockSync, withLock } from '../../src/core/lock.js';
import { openProfiles } from '../../src/config/profiles.js';

let tmp: string;
let lockPath: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rfs-lock-'));
  lockPath = path.join(tmp, 'thing.lock');
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid as number;
}

// The test runner that started this worker: alive, and not this process.
const livePid = process.ppid;

const leave = (pid: number, since = new Date()): void => fs.writeFileSync(lockPath, `${pid}\n${since.toISOString()}\n`);

describe('core/lock', () => {
  it('takes over a lock left by a dead process', async () => {
    leave(deadPid());
    const seen = await withLock(lockPath, () => fs.readFileSync(lockPath, 'utf8'), { waitMs: 1_000 });
    expect(seen.split('\n')[0]).toBe(String(process.pid));
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it('takes over a lock with a pid-only text (the older sync journal lock) of a dead process', () => {
    fs.writeFileSync(lockPath, `${deadPid()}\n`);
    const got = tryLockSync(lockPath);
    expect('release' in got).toBe(true);
    if ('release' in got) got.release();
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it('waits for a live owner, then refuses naming it', async () => {
    const since = new Date();
    leave(livePid, since);
    const started = Date.now();
    const error = await withLock(lockPath, () => 'ran', { waitMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockBusyError);
    expect((error as LockBusyError).owner).toEqual({ pid: livePid, since });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // The owner's lock is left as it was.
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(`${livePid}\n${since.toISOString()}\n`);
  });

  it('gets the lock as soon as a live owner releases it', async () => {
    leave(livePid);
    setTimeout(() => fs.unlinkSync(lockPath), 100);
    expect(await withLock(lockPath, () => 'ran', { waitMs: 5_000 })).toBe('ran');
  });

  it('takes over a live pid’s lock older than staleMs (a reused pid)', async () => {
    leave(livePid, new Date(Date.now() - 120_000));
    expect(await withLock(lockPath, () => 'ran', { waitMs: 300, staleMs: 60_000 })).toBe('ran');
    await expect(withLock(lockPath, () => 'ran', { waitMs: 100 })).resolves.toBe('ran');
  });

  it('waits on an empty lock (its owner is writing it) until it is old', async () => {
    fs.writeFileSync(lockPath, '');
    await expect(withLock(lockPath, () => 'ran', { waitMs: 100 })).rejects.toBeInstanceOf(LockBusyError);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, old, old);
    expect(await withLock(lockPath, () => 'ran', { waitMs: 100 })).toBe('ran');
  });

  it('does not delete a lock another process took over from it', () => {
    const got = tryLockSync(lockPath);
    if (!('release' in got)) throw new Error('expected the lock');
    fs.unlinkSync(lockPath);
    leave(livePid);
    got.release();
    expect(fs.readFileSync(lockPath, 'utf8').split('\n')[0]).toBe(String(livePid));
  });

  it('releases the lock when the step fails', async () => {
    await expect(
      withLock(
        lockPath,
        () => {
          throw new Error('boom');
        },
        { waitMs: 100 },
      ),
    ).rejects.toThrow('boom');
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it('serialises the callers of one process without waiting on its own lock', async () => {
    let inside = 0;
    let most = 0;
    const step = async (): Promise<void> => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 5));
      inside--;
    };
    await Promise.all(Array.from({ length: 8 }, () => withLock(lockPath, step, { waitMs: 1_000 })));
    expect(most).toBe(1);
  });
});

describe('the config file’s lock', () => {
  const KEY = 'service_pk_alpha_secret_1111';

  it('a save takes over the lock a killed rfs left beside the config, and removes it after', async () => {
    const dir = path.join(tmp, 'conf');
    fs.mkdirSync(dir, { mode: 0o700 });
    lockPath = path.join(dir, 'config.json.lock');
    leave(deadPid());
    const store = openProfiles({ RFS_CONFIG_DIR: dir });
    await store.save('a', { baseUrl: 'http://127.0.0.1:1', apiKey: KEY });
    expect(store.get('a')?.apiKey).toBe(KEY);
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it('saves made at once in one process keep every profile', async () => {
    const store = openProfiles({ RFS_CONFIG_DIR: path.join(tmp, 'conf') });
    const names = Array.from({ length: 10 }, (_, i) => `p${i}`);
    await Promise.all(names.map((name) => store.save(name, { baseUrl: 'http://127.0.0.1:1', apiKey: KEY })));
    expect(store.list().map((p) => p.name)).toEqual([...names].sort());
  });

  it('a logout with no config folder creates none', async () => {
    const dir = path.join(tmp, 'none');
    expect(await openProfiles({ RFS_CONFIG_DIR: dir }).remove('a')).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
