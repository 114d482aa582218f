// In a real terminal: the `auth switch` picker and the `auth logout`
// confirmation, run in a private tmux server (80×12 panes), keys typed with send-keys, and the
// screens compared exactly with capture-pane (the profiles and keys are fixed, so the screens are).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { needs, TMUX } from '../../helpers/platform.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../helpers/tmux.js';

const COLUMNS = 80;
const ROWS = 12;
const PROFILES = {
  defaultProfile: 'prod',
  profiles: {
    prod: { baseUrl: 'http://127.0.0.1:4010', apiKey: 'service_pk_prodSECRETkey0001' },
    ci: { baseUrl: 'https://api.example.com', apiKey: 'service_pk_ciSECRETkey0002' },
    staging: { baseUrl: 'https://staging.example.com', apiKey: 'service_pk_stSECRETkey0003' },
  },
};

let home: string;
let term: Terminal;
const SIZE = { columns: COLUMNS, rows: ROWS };

const config = () => JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as typeof PROFILES;

describe.skipIf(!TMUX.met)(needs(TMUX, 'auth prompts in a terminal'), () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-auth-'));
    term = await startTerminal(terminalEnv(home));
  });

  afterAll(async () => {
    await term?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  beforeEach(() => {
    rmSync(join(home, 'config'), { recursive: true, force: true });
    mkdirSync(join(home, 'config'), { mode: 0o700 });
    writeFileSync(join(home, 'config', 'config.json'), JSON.stringify(PROFILES), { mode: 0o600 });
  });

  it('auth switch without a name offers a picker of the profiles; Down and Enter choose staging', async () => {
    await term.run('switch', ['auth', 'switch'], SIZE);
    const first = await term.waitForInput('switch', (s) => s.includes('navigate'), 'the picker');
    expect(first).toBe(
      [
        '? Default profile',
        '  ci       https://api.example.com      service_pk_…0002',
        '❯ prod     http://127.0.0.1:4010        service_pk_…0001  (default now)',
        '  staging  https://staging.example.com  service_pk_…0003',
        '',
        '↑↓ navigate • ⏎ select',
      ].join('\n'),
    );
    await term.keys('switch', 'Down');
    await term.waitForInput('switch', (s) => s.includes('❯ staging'), 'the cursor on staging');
    await term.keys('switch', 'Enter');
    expect(await term.exitStatus('switch')).toBe(0);
    // The answered picker leaves its answer, then the outcome.
    const last = await term.screen('switch');
    expect(rfsLines(last)).toEqual([
      '✔ Default profile staging  https://staging.example.com  service_pk_…0003',
      'Default profile is now "staging".',
    ]);
    expect(last).not.toContain('SECRET');
    expect(config().defaultProfile).toBe('staging');
  });

  it('auth logout asks first; n keeps the profile', async () => {
    await term.run('logout-no', ['auth', 'logout'], SIZE);
    const asked = await term.waitForInput('logout-no', (s) => s.includes('(y/N)'), 'the question');
    expect(asked).toBe('? Remove the default profile "prod" and its key service_pk_…0001? (y/N)');
    await term.keys('logout-no', 'n', 'Enter');
    expect(await term.exitStatus('logout-no')).toBe(0);
    expect(rfsLines(await term.screen('logout-no'))).toEqual([
      '✔ Remove the default profile "prod" and its key service_pk_…0001? No',
      'Nothing removed.',
    ]);
    expect(Object.keys(config().profiles)).toContain('prod');
  });

  it('auth logout --profile ci: y removes it', async () => {
    await term.run('logout-yes', ['auth', 'logout', '--profile', 'ci'], SIZE);
    expect(await term.waitForInput('logout-yes', (s) => s.includes('(y/N)'), 'the question')).toBe(
      '? Remove the profile "ci" and its key service_pk_…0002? (y/N)',
    );
    await term.keys('logout-yes', 'y', 'Enter');
    expect(await term.exitStatus('logout-yes')).toBe(0);
    const removed = rfsLines(await term.screen('logout-yes'));
    expect(removed[0]).toBe('✔ Remove the profile "ci" and its key service_pk_…0002? Yes');
    // The notice wraps at words on a terminal: its lines, read as one.
    expect(removed.slice(1).join('\n').replace(/\s+/g, ' ')).toBe(
      `Removed profile "ci" and its key from ${join(home, 'config', 'config.json')}.`,
    );
    expect(Object.keys(config().profiles).sort()).toEqual(['prod', 'staging']);
  });
  // cli.md, Connection: with no profile marked default, rfs uses the one named `default`. Logging
  // out of the marked default then hands the next command to another profile: logout says which
  // (or that none is), rather than the next command surprising the user.
  it('auth logout of the default profile says which profile the next command uses', async () => {
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({
        defaultProfile: 'prod',
        profiles: { ...PROFILES.profiles, default: { baseUrl: 'https://old.example.com', apiKey: 'service_pk_oldSECRETkey0004' } },
      }),
      { mode: 0o600 },
    );
    await term.run('logout-default', ['auth', 'logout'], SIZE);
    await term.waitForInput('logout-default', (s) => s.includes('(y/N)'), 'the question');
    await term.keys('logout-default', 'y', 'Enter');
    expect(await term.exitStatus('logout-default')).toBe(0);
    const screen = rfsLines(await term.screen('logout-default'));
    expect(screen[0]).toBe('✔ Remove the default profile "prod" and its key service_pk_…0001? Yes');
    // Each notice wraps at words on an 80-column terminal; read as sentences.
    expect(screen.slice(1).join(' ').replace(/\s+/g, ' ')).toBe(
      `Removed profile "prod" and its key from ${join(home, 'config', 'config.json')}. ` +
        'No profile is marked default now: rfs uses the profile named "default"; rfs auth switch <name> makes another the default.',
    );
    expect(screen.every((line) => line.length <= COLUMNS)).toBe(true);
    expect(config().defaultProfile).toBeUndefined();
  });

  it('auth logout of the default profile with one other left makes that one the default, and says so', async () => {
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({ defaultProfile: 'prod', profiles: { prod: PROFILES.profiles.prod, ci: PROFILES.profiles.ci } }),
      { mode: 0o600 },
    );
    await term.run('logout-one-left', ['auth', 'logout', '--yes'], SIZE);
    expect(await term.exitStatus('logout-one-left')).toBe(0);
    const screen = rfsLines(await term.screen('logout-one-left'));
    expect(screen.join(' ').replace(/\s+/g, ' ')).toBe(
      `Removed profile "prod" and its key from ${join(home, 'config', 'config.json')}. "ci" is now the default profile (the only one left).`,
    );
    expect(config().defaultProfile).toBe('ci');
  });
});
