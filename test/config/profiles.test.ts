import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { configDir, openProfiles } from '../../src/config/profiles.js';

const KEY_A = 'service_pk_alpha_secret_1111';
const KEY_B = 'service_pk_bravo_secret_2222';

let tmp: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rfs-profiles-'));
  dir = path.join(tmp, 'conf');
  env = { RFS_CONFIG_DIR: dir };
});

afterEach(async () => {
  await fs.promises.rm(tmp, { recursive: true, force: true });
});

const mode = (p: string): number => fs.statSync(p).mode & 0o777;

async function caughtAsync(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('where the config lives', () => {
  test('uses RFS_CONFIG_DIR, then $XDG_CONFIG_HOME/rfs, then ~/.config/rfs', async () => {
    expect(configDir({ RFS_CONFIG_DIR: '/x/rfs-conf', XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/x/rfs-conf');
    expect(configDir({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/rfs');
    expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/rfs');
  });

  test('ignores a relative XDG_CONFIG_HOME, as the XDG spec says', async () => {
    expect(configDir({ XDG_CONFIG_HOME: 'rel/conf', HOME: '/home/u' })).toBe('/home/u/.config/rfs');
  });

  test('writes config.json in the chosen folder', async () => {
    const store = openProfiles({ XDG_CONFIG_HOME: tmp, HOME: '/nonexistent' });
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    expect(store.path).toBe(path.join(tmp, 'rfs', 'config.json'));
    expect(JSON.parse(fs.readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { work: { baseUrl: 'https://api.example.com', apiKey: KEY_A } },
      defaultProfile: 'work',
    });
  });
});

describe('file and folder permissions', () => {
  test('creates the folder 0700 and the file 0600, whatever the umask', async () => {
    const old = process.umask(0);
    try {
      const store = openProfiles(env);
      await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
      expect(mode(dir)).toBe(0o700);
      expect(mode(store.path)).toBe(0o600);
      await store.save('home', { baseUrl: 'https://api.example.com', apiKey: KEY_B });
      expect(mode(store.path)).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  test('leaves a folder it did not create at 0755, and warns once per run', async () => {
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const warnings: string[] = [];
    const cache = new Map();
    const store = openProfiles(env, { cache, warn: (m) => warnings.push(m) });
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    openProfiles(env, { cache, warn: (m) => warnings.push(m) });
    expect(mode(dir)).toBe(0o755);
    expect(mode(store.path)).toBe(0o600);
    expect(warnings).toEqual([
      `the config folder ${dir} has mode 0755, not 0700; rfs did not create it and leaves its mode as it is: \`chmod 700 ${dir}\` if it is yours alone, or set RFS_CONFIG_DIR to a folder of your own`,
    ]);
  });

  test('keeps the mode and sticky bit of a shared 1777 folder, reading and writing', async () => {
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o1777);
    const warnings: string[] = [];
    const store = openProfiles(env, { warn: (m) => warnings.push(m) });
    expect(store.list()).toEqual([]);
    expect(fs.statSync(dir).mode & 0o7777).toBe(0o1777);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    expect(fs.statSync(dir).mode & 0o7777).toBe(0o1777);
    expect(mode(store.path)).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('has mode 1777, not 0700');
  });

  test('a folder it creates itself is 0700 and never warned about', async () => {
    const warnings: string[] = [];
    const store = openProfiles(env, { warn: (m) => warnings.push(m) });
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    openProfiles(env, { warn: (m) => warnings.push(m) }).list();
    expect(mode(dir)).toBe(0o700);
    expect(warnings).toEqual([]);
  });

  test('tightens a config file that others could read', async () => {
    fs.mkdirSync(dir, { mode: 0o700 });
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ profiles: { a: { baseUrl: 'https://x.example', apiKey: KEY_A } } }));
    fs.chmodSync(file, 0o644);
    const store = openProfiles(env);
    expect(mode(file)).toBe(0o600);
    expect(store.get('a')?.apiKey).toBe(KEY_A);
  });

  test('writes by replacing the file whole: no temp files left, always valid JSON', async () => {
    const store = openProfiles(env);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    const inode = fs.statSync(store.path).ino;
    await store.save('home', { baseUrl: 'https://api.example.com', apiKey: KEY_B });
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
    // A rename puts a new file in place; writing in place would keep the inode.
    expect(fs.statSync(store.path).ino).not.toBe(inode);
    expect(() => JSON.parse(fs.readFileSync(store.path, 'utf8')) as unknown).not.toThrow();
  });

  test('opening a store to read does not create a config file', async () => {
    const store = openProfiles(env);
    expect(store.list()).toEqual([]);
    expect(store.defaultName()).toBeUndefined();
    expect(fs.existsSync(store.path)).toBe(false);
  });
});

describe('profiles', () => {
  test('the first profile saved becomes the default; later ones do not', async () => {
    const store = openProfiles(env);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    expect(store.defaultName()).toBe('work');
    await store.save('home', { baseUrl: 'http://127.0.0.1:4010', apiKey: KEY_B });
    expect(store.defaultName()).toBe('work');
    expect(store.list()).toEqual([
      { name: 'home', baseUrl: 'http://127.0.0.1:4010', apiKey: KEY_B, isDefault: false },
      { name: 'work', baseUrl: 'https://api.example.com', apiKey: KEY_A, isDefault: true },
    ]);
  });

  test('saving again replaces the profile and keeps the default', async () => {
    const store = openProfiles(env);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.save('work', { baseUrl: 'https://other.example.com/', apiKey: ` ${KEY_B}\n` });
    expect(store.get('work')).toEqual({ name: 'work', baseUrl: 'https://other.example.com/', apiKey: KEY_B });
    expect(openProfiles(env).get('work')?.apiKey).toBe(KEY_B);
  });

  test('setDefault switches the default, and refuses a profile that does not exist', async () => {
    const store = openProfiles(env);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.save('home', { baseUrl: 'https://api.example.com', apiKey: KEY_B });
    await store.setDefault('home');
    expect(store.defaultName()).toBe('home');
    const error = await caughtAsync(() => store.setDefault('nope'));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('no profile named "nope" (saved profiles: home, work)');
  });

  test('remove forgets the profile and its key', async () => {
    const store = openProfiles(env);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.save('home', { baseUrl: 'https://api.example.com', apiKey: KEY_B });
    expect(await store.remove('home')).toBe(true);
    expect(await store.remove('home')).toBe(false);
    expect(store.get('home')).toBeUndefined();
    expect(fs.readFileSync(store.path, 'utf8')).not.toContain(KEY_B);
  });

  test('removing the default leaves the only remaining profile as default', async () => {
    const store = openProfiles(env);
    await store.save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.save('home', { baseUrl: 'https://api.example.com', apiKey: KEY_B });
    await store.remove('work');
    expect(store.defaultName()).toBe('home');
  });

  test('removing the default among several leaves none marked, and the next save becomes default', async () => {
    const store = openProfiles(env);
    await store.save('a', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.save('b', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.save('c', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    await store.remove('a');
    expect(store.defaultName()).toBeUndefined();
    expect(store.list().every((p) => !p.isDefault)).toBe(true);
    await store.save('d', { baseUrl: 'https://api.example.com', apiKey: KEY_B });
    expect(store.defaultName()).toBe('d');
  });

  test('profile names with dots are stored as one name, not a path', async () => {
    const store = openProfiles(env);
    await store.save('acme.prod', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    expect(store.get('acme.prod')?.apiKey).toBe(KEY_A);
    expect(JSON.parse(fs.readFileSync(store.path, 'utf8'))).toMatchObject({ profiles: { 'acme.prod': { apiKey: KEY_A } } });
  });

  test('refuses a bad name, a key of the wrong form and plain http to a remote host, saving nothing', async () => {
    const store = openProfiles(env);
    expect(await caughtAsync(() => store.save('../etc', { baseUrl: 'https://api.example.com', apiKey: KEY_A }))).toBeInstanceOf(UsageError);
    expect(await caughtAsync(() => store.save('__proto__', { baseUrl: 'https://api.example.com', apiKey: KEY_A }))).toBeInstanceOf(
      UsageError,
    );
    const badKey = (await caughtAsync(() =>
      store.save('x', { baseUrl: 'https://api.example.com', apiKey: 'sk_live_abcdef' }),
    )) as UsageError;
    expect(badKey).toBeInstanceOf(UsageError);
    expect(badKey.message).not.toContain('sk_live_abcdef');
    expect(await caughtAsync(() => store.save('x', { baseUrl: 'http://api.example.com', apiKey: KEY_A }))).toBeInstanceOf(UsageError);
    expect(fs.existsSync(store.path)).toBe(false);
  });

  test('reads a profile saved by another process', async () => {
    await openProfiles(env).save('work', { baseUrl: 'https://api.example.com', apiKey: KEY_A });
    expect(openProfiles(env).get('work')).toEqual({ name: 'work', baseUrl: 'https://api.example.com', apiKey: KEY_A });
  });
});

describe('a damaged config file', () => {
  function writeRaw(text: string): string {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
  }

  test('that is not JSON gives a usage error naming the file and never quoting it', async () => {
    const file = writeRaw(`{"profiles": {"work": {"apiKey": "${KEY_A}", `);
    const error = caught(() => openProfiles(env).list()) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`the config file ${file} is damaged: it is not valid JSON`);
    expect(error.hint).toContain(file);
    expect(`${error.message} ${error.hint} ${String(error.stack)}`).not.toContain('alpha_secret');
  });

  test('with the wrong shape names the bad field', async () => {
    const file = writeRaw(JSON.stringify({ profiles: { work: { baseUrl: 'https://x.example', apiKey: 42 } } }));
    const error = caught(() => openProfiles(env).get('work')) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(
      new RegExp(`^the config file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged: profiles\\.work\\.apiKey: `),
    );
  });

  test('that is a JSON array is refused too', async () => {
    writeRaw('[1, 2]');
    expect(() => openProfiles(env).list()).toThrow(/is damaged/);
  });

  test('an empty file is damaged, not a crash', async () => {
    writeRaw('');
    expect(() => openProfiles(env).list()).toThrow(/is damaged: it is not valid JSON/);
  });

  test('keeps fields it does not know, so a newer rfs can add some', async () => {
    writeRaw(JSON.stringify({ version: 2, profiles: { a: { baseUrl: 'https://x.example', apiKey: KEY_A, note: 'n' } } }));
    const store = openProfiles(env);
    await store.save('b', { baseUrl: 'https://y.example', apiKey: KEY_B });
    await store.save('a', { baseUrl: 'https://z.example', apiKey: KEY_A });
    const stored = JSON.parse(fs.readFileSync(store.path, 'utf8')) as { version: number; profiles: { a: { note: string } } };
    expect(stored.version).toBe(2);
    expect(stored.profiles.a.note).toBe('n');
  });
});
