// cli.md, auth: profile names complete in every shell (`-p <TAB>`, `auth switch <TAB>`), read
// from the config file when the completion runs. Driven through a real bash with the kept
// script and the built rfs on PATH; the hidden hook prints names only, never keys.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASH_SCRIPT, ROOT_DIR, bashComplete, fishAnswers, zshAnswers } from './support.js';

const KEY = 'service_pk_completionSECRET_4242';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-complete-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  // `rfs` on PATH, as after `npm link`: the built CLI of this checkout.
  writeFileSync(join(bin, 'rfs'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT_DIR, 'bin', 'rfs.js')}" "$@"\n`);
  chmodSync(join(bin, 'rfs'), 0o755);
  const config = join(dir, 'config');
  mkdirSync(config, { mode: 0o700 });
  const profile = (n: number) => ({ baseUrl: 'http://127.0.0.1:4010', apiKey: `${KEY}${n}` });
  writeFileSync(
    join(config, 'config.json'),
    JSON.stringify({ defaultProfile: 'prod', profiles: { prod: profile(1), 'pre-prod': profile(2), ci: profile(3) } }),
    { mode: 0o600 },
  );
  env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, RFS_CONFIG_DIR: config };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sorted = (list: string[]) => [...list].sort();

describe('profile names in completion', () => {
  it('the hook prints the saved names, one a line, and no key', () => {
    const result = spawnSync(process.execPath, [join(ROOT_DIR, 'bin', 'rfs.js'), '__complete-profiles'], { env, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(sorted(result.stdout.trim().split('\n'))).toEqual(['ci', 'pre-prod', 'prod']);
    expect(result.stdout + result.stderr).not.toContain('service_pk_');
  });

  it('the hook prints nothing, exit 0, when the config file is damaged', () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken, { mode: 0o700 });
    writeFileSync(join(broken, 'config.json'), '{ not json', { mode: 0o600 });
    const result = spawnSync(process.execPath, [join(ROOT_DIR, 'bin', 'rfs.js'), '__complete-profiles'], {
      env: { ...env, RFS_CONFIG_DIR: broken },
      encoding: 'utf8',
    });
    expect([result.status, result.stdout, result.stderr]).toEqual([0, '', '']);
  });

  it('bash: `rfs -p <TAB>` offers the saved profiles', () => {
    expect(sorted(bashComplete(['rfs', '-p', ''], { env }))).toEqual(['ci', 'pre-prod', 'prod']);
  });

  it('bash: `rfs recordings list --profile pr<TAB>` and `--profile=pr<TAB>` complete the prefix', () => {
    expect(sorted(bashComplete(['rfs', 'recordings', 'list', '--profile', 'pr'], { env }))).toEqual(['pre-prod', 'prod']);
    expect(sorted(bashComplete(['rfs', 'recordings', 'list', '--profile=pr'], { env }))).toEqual(['--profile=pre-prod', '--profile=prod']);
  });

  it('bash: `rfs auth switch <TAB>` offers the saved profiles, read when completing', () => {
    expect(sorted(bashComplete(['rfs', 'auth', 'switch', ''], { env }))).toEqual(['ci', 'pre-prod', 'prod']);
    expect(bashComplete(['rfs', 'auth', 'switch', 'c'], { env })).toEqual(['ci']);
  });

  it('bash: nothing (and no error) when no profile is saved', () => {
    expect(bashComplete(['rfs', 'auth', 'switch', ''], { env: { ...env, RFS_CONFIG_DIR: join(dir, 'none') } })).toEqual([]);
  });

  it('the kept scripts of zsh and fish call the same hook for --profile and auth switch', () => {
    const zsh = readFileSync(join(ROOT_DIR, 'completions', '_rfs'), 'utf8');
    expect(zsh).toContain(`'(-p --profile)-p+[config profile to use (env RFS_PROFILE)]:name:_rfs_profiles'`);
    expect(zsh).toMatch(/_rfs_cmd_auth_switch\(\) \{\n(?:.*\n){2}.*:_rfs_profiles'\n\}/);
    expect(zsh).toContain('names=(${(f)"$(command rfs __complete-profiles 2>/dev/null)"})');
    const fish = readFileSync(join(ROOT_DIR, 'completions', 'rfs.fish'), 'utf8');
    expect(fish).toContain(`-s p -l profile -x -a '(command rfs __complete-profiles 2>/dev/null)'`);
    expect(fish).toContain(`complete -c rfs -n '__rfs_at \\'rfs auth switch\\' 0' -a '(command rfs __complete-profiles 2>/dev/null)'`);
    expect(BASH_SCRIPT).toMatch(/rfs\.bash$/);
  });
});

// A profile that holds settings and no key (`rfs config set --profile staging-eu output json`)
// is one `-p` can name, the key coming from RFS_API_KEY: every shell offers it, as it offers a
// profile saved by `auth login`.
describe('a profile with settings only, in every shell', () => {
  let keyless: NodeJS.ProcessEnv;
  beforeAll(() => {
    const config = join(dir, 'keyless-config');
    mkdirSync(config, { mode: 0o700 });
    writeFileSync(join(config, 'config.json'), JSON.stringify({ defaultProfile: 'prod', profiles: { prod: { apiKey: `${KEY}9` } } }), {
      mode: 0o600,
    });
    keyless = { ...env, RFS_CONFIG_DIR: config };
    // Made as a user makes it: no key, one setting.
    const set = spawnSync(
      process.execPath,
      [join(ROOT_DIR, 'bin', 'rfs.js'), 'config', 'set', '--profile', 'staging-eu', 'output', 'json'],
      {
        env: keyless,
        encoding: 'utf8',
      },
    );
    expect([set.status, set.stderr]).toEqual([0, expect.any(String)]);
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles['staging-eu']).toEqual({ output: 'json' });
  });

  it('the hook prints it beside the keyed ones', () => {
    const result = spawnSync(process.execPath, [join(ROOT_DIR, 'bin', 'rfs.js'), '__complete-profiles'], {
      env: keyless,
      encoding: 'utf8',
    });
    expect(sorted(result.stdout.trim().split('\n'))).toEqual(['prod', 'staging-eu']);
  });

  it('bash offers it for -p and auth switch', () => {
    expect(sorted(bashComplete(['rfs', '-p', ''], { env: keyless }))).toEqual(['prod', 'staging-eu']);
    expect(bashComplete(['rfs', 'recordings', 'list', '--profile', 'st'], { env: keyless })).toEqual(['staging-eu']);
    expect(bashComplete(['rfs', 'auth', 'switch', 'st'], { env: keyless })).toEqual(['staging-eu']);
  });

  it('zsh offers it', () => {
    const answers = zshAnswers(['rfs -p ', 'rfs recordings list --profile st'], keyless);
    expect(answers.map(sorted)).toEqual([['prod', 'staging-eu'], ['staging-eu']]);
  });

  it('fish offers it', () => {
    const answers = fishAnswers(['rfs -p ', 'rfs recordings list --profile st'], keyless);
    expect(answers.map(sorted)).toEqual([['prod', 'staging-eu'], ['staging-eu']]);
  });
});
