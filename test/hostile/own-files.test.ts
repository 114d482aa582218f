// Where rfs writes (the config, the sync journal, the inspector's history, the sandbox's
// --data), a symbolic link it did not make is neither written through nor has its target's mode
// changed: the target may be any file, and for root any file at all (core/own-file.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openProfiles } from '../../src/config/profiles.js';
import { UsageError } from '../../src/core/errors.js';
import { LockFileError, tryLockSync } from '../../src/core/lock.js';
import { NotOwnFileError, openAppendSync, setOwnMode } from '../../src/core/own-file.js';
import { HistoryFile } from '../../src/inspector/history.js';
import { Saver } from '../../src/sandbox/saver.js';
import { Journal, JournalRefusedError } from '../../src/sync/journal.js';
import { LINUX, needs } from '../helpers/platform.js';

const KEY = 'service_pk_alpha_secret_1111';
const CONFIG = `${JSON.stringify({ profiles: { a: { baseUrl: 'https://x.example', apiKey: KEY } } })}\n`;

let tmp: string;
let victim: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rfs-own-files-'));
  // The file a planted link points to: another program's, world-readable on purpose.
  victim = path.join(tmp, 'elsewhere', 'victim.json');
  fs.mkdirSync(path.dirname(victim));
  fs.writeFileSync(victim, CONFIG);
  fs.chmodSync(victim, 0o644);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const mode = (p: string): number => fs.statSync(p).mode & 0o7777;

function expectUntouched(link: string): void {
  expect(fs.readFileSync(victim, 'utf8')).toBe(CONFIG);
  expect(mode(victim)).toBe(0o644);
  expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe.skipIf(!LINUX.met)(needs(LINUX, 'links at the names rfs writes'), () => {
  test('a linked config.json is read, and its target keeps 0644', () => {
    const dir = path.join(tmp, 'conf');
    fs.mkdirSync(dir, { mode: 0o700 });
    const link = path.join(dir, 'config.json');
    fs.symlinkSync(victim, link);
    // Both ways a command opens the config: to read only, and to change it later.
    expect(openProfiles({ RFS_CONFIG_DIR: dir }, { readOnly: true }).get('a')?.apiKey).toBe(KEY);
    expect(openProfiles({ RFS_CONFIG_DIR: dir }).get('a')?.apiKey).toBe(KEY);
    expectUntouched(link);
  });

  test('a write to a linked config.json is refused with a clear error, its target unchanged', async () => {
    const dir = path.join(tmp, 'conf');
    fs.mkdirSync(dir, { mode: 0o700 });
    const link = path.join(dir, 'config.json');
    fs.symlinkSync(victim, link);
    const store = openProfiles({ RFS_CONFIG_DIR: dir });
    const error = await rejection(store.save('b', { baseUrl: 'https://y.example', apiKey: KEY }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      `cannot write the config file: ${link} is a symbolic link: rfs writes only the file itself, never through a link it did not make`,
    );
    expectUntouched(link);
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });

  test('the sync journal at a link is refused, its target unchanged', () => {
    const link = path.join(tmp, 'state', 'sync-default.jsonl');
    fs.mkdirSync(path.dirname(link));
    fs.writeFileSync(victim, '');
    fs.chmodSync(victim, 0o644);
    fs.symlinkSync(victim, link);
    expect(() => Journal.open(link, { now: () => 0 })).toThrow(JournalRefusedError);
    expect(fs.readFileSync(victim, 'utf8')).toBe('');
    expect(mode(victim)).toBe(0o644);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  });

  test("the inspector's history at a link is neither rewritten nor appended to", async () => {
    const link = path.join(tmp, 'history.jsonl');
    fs.symlinkSync(victim, link);
    const errors: unknown[] = [];
    const history = new HistoryFile(link, [], { onError: (error) => errors.push(error) });
    expect(await rejection(history.start())).toBeInstanceOf(NotOwnFileError);
    // Appends are coalesced and written later: a failed write is reported, not thrown.
    history.append({ id: 'evt_1' } as never);
    await history.flushed();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(NotOwnFileError);
    expectUntouched(link);
  });

  test("the sandbox's --data file and its journal at links are not written through", async () => {
    const link = path.join(tmp, 'sandbox.json');
    fs.writeFileSync(victim, '{}\n');
    fs.chmodSync(victim, 0o644);
    fs.symlinkSync(victim, link);
    const journalLink = `${link}.journal`;
    fs.symlinkSync(victim, journalLink);
    const logged: string[] = [];
    const source = { snapshot: () => ({ version: 1 }) as never, batch: () => ({}) as never };
    const saver = new Saver(link, source, (line) => logged.push(line));
    saver.everything();
    expect(await rejection(saver.durable() ?? Promise.resolve())).toBeInstanceOf(NotOwnFileError);
    expect(logged.join('\n')).toMatch(/sandbox\.json is a symbolic link/);
    await saver.close();
    expect(fs.readFileSync(victim, 'utf8')).toBe('{}\n');
    expect(mode(victim)).toBe(0o644);
  });

  test('setOwnMode leaves a link, and what it points to, as they are', () => {
    const link = path.join(tmp, 'link');
    fs.symlinkSync(victim, link);
    expect(setOwnMode(link, 0o600)).toBe(false);
    expectUntouched(link);
    const own = path.join(tmp, 'own');
    fs.writeFileSync(own, '');
    fs.chmodSync(own, 0o644);
    expect(setOwnMode(own, 0o600)).toBe(true);
    expect(mode(own)).toBe(0o600);
  });

  test('a FIFO is refused for appending without waiting for a reader', () => {
    const fifo = path.join(tmp, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => openAppendSync(fifo)).toThrow(NotOwnFileError);
  });
});

describe('a lock path that holds what no rfs made', () => {
  // A FIFO would block the read of the lock (and every signal) forever; a link would send the user
  // waiting for a sync that does not exist.
  test.each([
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), /not a regular file/],
    ['a symbolic link', (p: string) => fs.symlinkSync(path.join(tmp, 'elsewhere'), p), /a symbolic link/],
  ])('%s: refused with exit 2 at once, naming it', (_, plant, why) => {
    const lock = path.join(tmp, 'journal.jsonl.lock');
    plant(lock);
    let thrown: unknown;
    try {
      tryLockSync(lock);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LockFileError);
    expect((thrown as LockFileError).exitCode).toBe(2);
    expect((thrown as Error).message).toMatch(why);
    expect((thrown as Error).message).toContain(lock);
  });
});
