import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AuthError, UsageError, exitCodeFor } from '../../src/core/errors.js';
import { DEFAULT_BASE_URL, resolveConnection } from '../../src/config/connection.js';
import { type ProfileStore, openProfiles } from '../../src/config/profiles.js';

const KEY_WORK = 'service_pk_work_key_aaaa';
const KEY_HOME = 'service_pk_home_key_bbbb';
const KEY_DEFAULT = 'service_pk_dflt_key_cccc';
const KEY_ENV = 'service_pk_env_key_dddd';

let tmp: string;
let configEnv: NodeJS.ProcessEnv;

beforeEach(async () => {
  tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rfs-connection-'));
  configEnv = { RFS_CONFIG_DIR: tmp };
});

afterEach(async () => {
  await fs.promises.rm(tmp, { recursive: true, force: true });
});

/** work (default, first saved), home, and one literally named "default". */
async function fullStore(): Promise<ProfileStore> {
  const store = openProfiles(configEnv);
  await store.save('work', { baseUrl: 'https://work.example.com', apiKey: KEY_WORK });
  await store.save('home', { baseUrl: 'https://home.example.com', apiKey: KEY_HOME });
  await store.save('default', { baseUrl: 'https://default.example.com', apiKey: KEY_DEFAULT });
  return store;
}

function caught(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('profile: --profile, then RFS_PROFILE, then the default-marked profile, then "default"', () => {
  test('the flag wins over the environment', async () => {
    const c = resolveConnection({ profile: 'home' }, { RFS_PROFILE: 'work' }, await fullStore());
    expect(c).toEqual({ profile: 'home', baseUrl: 'https://home.example.com', apiKey: KEY_HOME });
  });

  test('RFS_PROFILE wins over the default-marked profile', async () => {
    expect(resolveConnection({}, { RFS_PROFILE: 'home' }, await fullStore()).profile).toBe('home');
  });

  test('the default-marked profile wins over one named "default"', async () => {
    expect(resolveConnection({}, {}, await fullStore())).toEqual({
      profile: 'work',
      baseUrl: 'https://work.example.com',
      apiKey: KEY_WORK,
    });
  });

  test('with no default marked, the profile named "default" is used', async () => {
    const store = await fullStore();
    await store.remove('work'); // two left: no default is guessed
    expect(store.defaultName()).toBeUndefined();
    expect(resolveConnection({}, {}, store)).toEqual({ profile: 'default', baseUrl: 'https://default.example.com', apiKey: KEY_DEFAULT });
  });

  test('an empty RFS_PROFILE counts as unset', async () => {
    expect(resolveConnection({}, { RFS_PROFILE: '' }, await fullStore()).profile).toBe('work');
  });
});

describe('base URL: --base-url, then RFS_BASE_URL, then the profile, then the local sandbox', () => {
  test('the flag wins over the environment and the profile', async () => {
    const c = resolveConnection({ baseUrl: 'https://flag.example.com' }, { RFS_BASE_URL: 'https://env.example.com' }, await fullStore());
    expect(c.baseUrl).toBe('https://flag.example.com');
    expect(c.apiKey).toBe(KEY_WORK);
  });

  test('the environment wins over the profile', async () => {
    expect(resolveConnection({}, { RFS_BASE_URL: 'https://env.example.com' }, await fullStore()).baseUrl).toBe('https://env.example.com');
  });

  test('the profile is used when neither is given', async () => {
    expect(resolveConnection({}, {}, await fullStore()).baseUrl).toBe('https://work.example.com');
  });

  test('with no profile at all, the sandbox default address', async () => {
    const c = resolveConnection({}, { RFS_API_KEY: KEY_ENV }, openProfiles(configEnv));
    expect(DEFAULT_BASE_URL).toBe('http://127.0.0.1:4010');
    expect(c).toEqual({ profile: 'default', baseUrl: DEFAULT_BASE_URL, apiKey: KEY_ENV });
  });

  test('plain http to a remote host is refused with exit 2', async () => {
    const full = await fullStore();
    const error = caught(() => resolveConnection({ baseUrl: 'http://api.example.com' }, {}, full));
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeFor(error)).toBe(2);
    expect(error.message).toContain('refusing plain http');
  });

  test('plain http to loopback is allowed', async () => {
    expect(resolveConnection({ baseUrl: 'http://localhost:9999' }, {}, await fullStore()).baseUrl).toBe('http://localhost:9999');
  });
});

describe('API key: RFS_API_KEY, then the profile (never a flag)', () => {
  test('the environment wins over the profile, and the profile still gives the base URL', async () => {
    expect(resolveConnection({}, { RFS_API_KEY: KEY_ENV }, await fullStore())).toEqual({
      profile: 'work',
      baseUrl: 'https://work.example.com',
      apiKey: KEY_ENV,
    });
  });

  test('the profile key is used without RFS_API_KEY, and an empty RFS_API_KEY counts as unset', async () => {
    expect(resolveConnection({ profile: 'home' }, { RFS_API_KEY: '' }, await fullStore()).apiKey).toBe(KEY_HOME);
  });

  test('no key anywhere is exit 3 naming both ways to provide one', async () => {
    const error = caught(() => resolveConnection({}, {}, openProfiles(configEnv)));
    expect(error).toBeInstanceOf(AuthError);
    expect(exitCodeFor(error)).toBe(3);
    expect(error.message).toBe('no API key configured: run `rfs auth login` to save one, or set RFS_API_KEY');
  });

  test('profiles saved but none selected: exit 3, listing them', async () => {
    const store = openProfiles(configEnv);
    await store.save('d', { baseUrl: 'https://d.example.com', apiKey: KEY_HOME });
    await store.save('e', { baseUrl: 'https://e.example.com', apiKey: KEY_HOME });
    await store.save('f', { baseUrl: 'https://f.example.com', apiKey: KEY_HOME });
    await store.remove('d'); // the default goes; e and f are left and rfs does not guess between them
    const error = caught(() => resolveConnection({}, {}, store)) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(exitCodeFor(error)).toBe(3);
    expect(error.message).toBe('no API key configured for profile "default": run `rfs auth login` to save one, or set RFS_API_KEY');
    expect(error.hint).toBe('saved profiles: e, f; choose one with `rfs auth switch <name>` or --profile');
  });

  test('a key of the wrong form is exit 2 and never echoed', async () => {
    const error = caught(() => resolveConnection({}, { RFS_API_KEY: 'sk_live_supersecret' }, openProfiles(configEnv)));
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeFor(error)).toBe(2);
    expect(error.message).toContain('service_pk_');
    expect(error.message).not.toContain('supersecret');
  });

  test('surrounding whitespace from a pasted key is dropped', async () => {
    expect(resolveConnection({}, { RFS_API_KEY: `  ${KEY_ENV}\n` }, await fullStore()).apiKey).toBe(KEY_ENV);
  });
});

describe('a profile asked for by name that does not exist', () => {
  test('via --profile is exit 2 listing the saved profiles', async () => {
    const full = await fullStore();
    const error = caught(() => resolveConnection({ profile: 'wrok' }, {}, full)) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeFor(error)).toBe(2);
    expect(error.message).toBe('no profile named "wrok" (saved profiles: default, home, work)');
    expect(error.hint).toContain('rfs auth login --profile wrok');
  });

  test('via RFS_PROFILE is the same error', async () => {
    const error = caught(() => resolveConnection({}, { RFS_PROFILE: 'ci' }, openProfiles(configEnv)));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('no profile named "ci" (no profiles are saved yet)');
  });

  test('is fine when RFS_API_KEY provides the key', async () => {
    expect(
      resolveConnection({ profile: 'ci' }, { RFS_API_KEY: KEY_ENV, RFS_BASE_URL: 'https://ci.example.com' }, await fullStore()),
    ).toEqual({
      profile: 'ci',
      baseUrl: 'https://ci.example.com',
      apiKey: KEY_ENV,
    });
  });

  test('never prints a saved key in any of these errors', async () => {
    const store = await fullStore();
    const errors = [
      caught(() => resolveConnection({ profile: 'nope' }, {}, store)),
      caught(() => resolveConnection({ baseUrl: 'http://remote.example.com' }, {}, store)),
    ];
    for (const e of errors) {
      const text = `${e.message} ${(e as UsageError).hint ?? ''}`;
      for (const key of [KEY_WORK, KEY_HOME, KEY_DEFAULT]) expect(text).not.toContain(key.slice(11));
    }
  });
});
