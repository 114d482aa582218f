// core/lock.ts on a volume that several hosts can mount: a lock names its host, boot id and PID
// namespace; another host's lock is refused whatever its pid, this host's lock of an earlier boot
// is taken over (once untouched, for a holder that refreshes it), and one of this host and boot
// in another PID namespace lives while refreshed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectLock, lockHost, tryLockSync } from '../../src/core/lock.js';

const BOOT = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
const PIDNS = readlinkSync('/proc/self/ns/pid');
let dir: string;
let lock: string;

// A live process of this host and namespace that is not this one: its pid makes a lock live.
const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
afterAll(() => {
  live.kill('SIGKILL');
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-lock-host-'));
  lock = join(dir, 'journal.jsonl.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const text = (pid: number, fields: Record<string, string>) =>
  `${pid}\n2026-11-28T10:00:00.000Z\n${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;

describe('a lock that names its host', () => {
  it('records the hostname, the boot id of /proc and the PID namespace', () => {
    expect(lockHost()).toEqual({ host: hostname(), boot: BOOT, pidNamespace: PIDNS });
    const got = tryLockSync(lock);
    expect('release' in got).toBe(true);
    const lines = readFileSync(lock, 'utf8').split('\n');
    expect(lines[0]).toBe(String(process.pid));
    expect(lines.slice(2)).toEqual([`host=${hostname()}`, `boot=${BOOT}`, `pidns=${PIDNS}`, '']);
    if ('release' in got) got.release();
  });

  it("refuses another host's lock, even when its pid is not running here, and names that host", () => {
    writeFileSync(lock, text(999_999, { host: 'rfs-sync-0', boot: BOOT, pidns: PIDNS }));
    const got = tryLockSync(lock, { liveWithinMs: 60_000 });
    expect('release' in got).toBe(false);
    if (!('release' in got)) expect(got.owner).toMatchObject({ pid: 999_999, host: 'rfs-sync-0' });
    expect(inspectLock(lock)?.stale).toBe(false);
  });

  it("takes over this host's lock from an earlier boot, even when its pid is running now", () => {
    writeFileSync(lock, text(live.pid as number, { host: hostname(), boot: '00000000-0000-4000-8000-000000000000', pidns: PIDNS }));
    const got = tryLockSync(lock);
    expect('release' in got).toBe(true);
    expect(readFileSync(lock, 'utf8')).toContain(`boot=${BOOT}`);
  });

  it("for a holder that refreshes it (the journal's): this host's lock of an earlier boot, once untouched", () => {
    // A host of the same name may still run it (two pods of one name on one volume): live while touched.
    writeFileSync(lock, text(999_999, { host: hostname(), boot: '00000000-0000-4000-8000-000000000000', pidns: PIDNS }));
    expect('release' in tryLockSync(lock, { liveWithinMs: 60_000 })).toBe(false);
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    expect('release' in tryLockSync(lock, { liveWithinMs: 60_000 })).toBe(true);
  });

  it('keeps judging a lock of this host, boot and namespace by its pid', () => {
    writeFileSync(lock, text(live.pid as number, { host: hostname(), boot: BOOT, pidns: PIDNS }));
    expect('release' in tryLockSync(lock)).toBe(false);
    writeFileSync(lock, text(999_999, { host: hostname(), boot: BOOT, pidns: PIDNS }));
    expect('release' in tryLockSync(lock)).toBe(true);
  });

  it('in another PID namespace of this host and boot: live while refreshed, stale once it is not', () => {
    // Its pid is ours: were the namespace ignored, the pid rule would take it over at once.
    writeFileSync(lock, text(process.pid, { host: hostname(), boot: BOOT, pidns: 'pid:[1]' }));
    expect('release' in tryLockSync(lock, { liveWithinMs: 60_000 })).toBe(false);
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    expect(inspectLock(lock, { liveWithinMs: 60_000 })?.stale).toBe(true);
    expect('release' in tryLockSync(lock, { liveWithinMs: 60_000 })).toBe(true);
  });

  it('judges a lock of an older rfs (pid and time only) as before: by its pid', () => {
    writeFileSync(lock, `${live.pid}\n2026-11-28T10:00:00.000Z\n`);
    expect('release' in tryLockSync(lock)).toBe(false);
    writeFileSync(lock, '999999\n');
    expect('release' in tryLockSync(lock)).toBe(true);
  });
});
