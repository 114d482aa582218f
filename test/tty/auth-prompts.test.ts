// issue 12, item 13 in a real terminal: the `auth switch` picker and the `auth logout`
// confirmation, run in a private tmux server (80×12 panes), keys typed with send-keys, and the
// screens compared exactly with capture-pane (the profiles and keys are fixed, so the screens are).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { needs, TMUX } from '../helpers/platform.js';

const RFS_BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));
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
let socket: string;
let env: NodeJS.ProcessEnv;
let started = false;
let serverPid = 0;

function tmux(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, timeout: 5000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`tmux ${args.join(' ')}: ${error.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

/**
 * Runs rfs in a new pane through sh, which prints `[exit N]` once rfs has ended: tmux can mark a
 * pane dead (its pty closed) before it has collected the exit status.
 */
async function runInPane(name: string, args: string[]): Promise<void> {
  const command = [process.execPath, RFS_BIN, ...args].map((a) => `'${a}'`).join(' ');
  await tmux('new-session', '-d', '-s', name, '-x', String(COLUMNS), '-y', String(ROWS), '--', 'sh', '-c', `${command}; echo "[exit $?]"`);
}

async function screen(name: string): Promise<string> {
  // -J: a line wider than the pane is shown as the one line it is.
  const lines = (await tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', name)).split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

async function waitForScreen(name: string, check: (s: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await screen(name);
    if (check(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function exitStatus(name: string): Promise<number> {
  const s = await waitForScreen(name, (text) => /\[exit \d+\]/.test(text), 'rfs to exit');
  return Number(/\[exit (\d+)\]/.exec(s)?.[1]);
}

/** The lines rfs left on the screen: up to sh's `[exit N]` line. */
function rfsLines(text: string): string[] {
  const lines = text.split('\n');
  const end = lines.findIndex((l) => /^\[exit \d+\]$/.test(l));
  return end < 0 ? lines : lines.slice(0, end);
}

const config = () => JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as typeof PROFILES;

describe.skipIf(!TMUX.met)(needs(TMUX, 'auth prompts in a terminal'), () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-auth-'));
    socket = `rfs-tty-auth-${process.pid}-${randomBytes(4).toString('hex')}`;
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TMUX_TMPDIR: home,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      NO_COLOR: '1',
      RFS_CONFIG_DIR: join(home, 'config'),
    };
    await tmux('new-session', '-d', '-s', 'hold', '-x', String(COLUMNS), '-y', String(ROWS), '--', 'cat');
    started = true;
    serverPid = Number((await tmux('display-message', '-p', '-t', 'hold', '#{pid}')).trim());
    await tmux('set-option', '-g', 'remain-on-exit', 'on');
  });

  afterAll(async () => {
    if (started) await tmux('kill-server').catch(() => undefined);
    if (serverPid > 1) {
      try {
        process.kill(serverPid, 0);
        process.kill(serverPid, 'SIGKILL');
      } catch {
        // Gone, as it should be.
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  beforeEach(() => {
    rmSync(join(home, 'config'), { recursive: true, force: true });
    mkdirSync(join(home, 'config'), { mode: 0o700 });
    writeFileSync(join(home, 'config', 'config.json'), JSON.stringify(PROFILES), { mode: 0o600 });
  });

  it('auth switch without a name offers a picker of the profiles; Down and Enter choose staging', async () => {
    await runInPane('switch', ['auth', 'switch']);
    const first = await waitForScreen('switch', (s) => s.includes('navigate'), 'the picker');
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
    await tmux('send-keys', '-t', 'switch', 'Down');
    await waitForScreen('switch', (s) => s.includes('❯ staging'), 'the cursor on staging');
    await tmux('send-keys', '-t', 'switch', 'Enter');
    expect(await exitStatus('switch')).toBe(0);
    // The answered picker leaves its answer, then the outcome.
    const last = await screen('switch');
    expect(rfsLines(last)).toEqual([
      '✔ Default profile staging  https://staging.example.com  service_pk_…0003',
      'Default profile is now "staging".',
    ]);
    expect(last).not.toContain('SECRET');
    expect(config().defaultProfile).toBe('staging');
  });

  it('auth logout asks first; n keeps the profile', async () => {
    await runInPane('logout-no', ['auth', 'logout']);
    const asked = await waitForScreen('logout-no', (s) => s.includes('(y/N)'), 'the question');
    expect(asked).toBe('? Remove the default profile "prod" and its key service_pk_…0001? (y/N)');
    await tmux('send-keys', '-t', 'logout-no', 'n', 'Enter');
    expect(await exitStatus('logout-no')).toBe(0);
    expect(rfsLines(await screen('logout-no'))).toEqual([
      '✔ Remove the default profile "prod" and its key service_pk_…0001? No',
      'Nothing removed.',
    ]);
    expect(Object.keys(config().profiles)).toContain('prod');
  });

  it('auth logout --profile ci: y removes it', async () => {
    await runInPane('logout-yes', ['auth', 'logout', '--profile', 'ci']);
    expect(await waitForScreen('logout-yes', (s) => s.includes('(y/N)'), 'the question')).toBe(
      '? Remove the profile "ci" and its key service_pk_…0002? (y/N)',
    );
    await tmux('send-keys', '-t', 'logout-yes', 'y', 'Enter');
    expect(await exitStatus('logout-yes')).toBe(0);
    expect(rfsLines(await screen('logout-yes'))).toEqual([
      '✔ Remove the profile "ci" and its key service_pk_…0002? Yes',
      `Removed profile "ci" and its key from ${join(home, 'config', 'config.json')}.`,
    ]);
    expect(Object.keys(config().profiles).sort()).toEqual(['prod', 'staging']);
  });
});
