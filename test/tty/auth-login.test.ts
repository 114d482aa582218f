// issue 12, item 13 in a real terminal: an interactive `auth login` whose first key the service
// refuses (401) asks for the key again and keeps the URL typed before; and a login that would
// replace a saved key asks first. A private tmux server (-L), killed after.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalEnv } from '../helpers/tmux.js';
import { page, problem } from '../helpers/fixtures.js';
import { needs, TMUX } from '../helpers/platform.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

const RFS_BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));
const BAD = 'service_pk_refusedKEY0000';
const GOOD = 'service_pk_acceptedKEY1111';

let home: string;
let socket: string;
let env: NodeJS.ProcessEnv;
let started = false;
let server: ScenarioServer;

function tmux(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, timeout: 5000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`tmux ${args.join(' ')}: ${error.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

async function runInPane(name: string, args: string[]): Promise<void> {
  const command = [process.execPath, RFS_BIN, ...args].map((a) => `'${a}'`).join(' ');
  await tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '20', '--', 'sh', '-c', `${command}; echo "[exit $?]"`);
}

async function screen(name: string): Promise<string> {
  const lines = (await tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', name)).split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

async function waitFor(name: string, check: (s: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await screen(name);
    if (check(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const count = (text: string, what: string) => text.split(what).length - 1;

describe.skipIf(!TMUX.met)(needs(TMUX, 'interactive auth login in a terminal'), () => {
  beforeAll(async () => {
    server = await startScenarioServer();
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-login-'));
    socket = `rfs-tty-login-${process.pid}-${randomBytes(4).toString('hex')}`;
    env = terminalEnv(home);
    await tmux('new-session', '-d', '-s', 'hold', '--', 'cat');
    started = true;
    await tmux('set-option', '-g', 'remain-on-exit', 'on');
  });

  afterAll(async () => {
    if (started) await tmux('kill-server').catch(() => undefined);
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('asks for the key again after a 401, keeping the URL, then saves the accepted key', async () => {
    server.queue(problem(401, 'UNAUTHORIZED', 'Invalid key'), { body: page([], null, 1) });
    await runInPane('login', ['auth', 'login']);
    await waitFor('login', (s) => s.includes('Service base URL'), 'the URL question');
    await tmux('send-keys', '-t', 'login', '-l', server.url);
    await tmux('send-keys', '-t', 'login', 'Enter');
    await waitFor('login', (s) => s.includes('API key'), 'the key question');
    await tmux('send-keys', '-t', 'login', '-l', BAD);
    await tmux('send-keys', '-t', 'login', 'Enter');
    const again = await waitFor('login', (s) => count(s, '? API key') === 1 && s.includes('try another key'), 'the key asked again');
    expect(again).toContain('warning: the service refused the key service_pk_…0000 (401 UNAUTHORIZED); try another key (Ctrl-C to stop)');
    await tmux('send-keys', '-t', 'login', '-l', GOOD);
    await tmux('send-keys', '-t', 'login', 'Enter');
    const done = await waitFor('login', (s) => /\[exit \d+\]/.test(s), 'rfs to exit');
    expect(done).toContain('[exit 0]');
    expect(count(done, 'Service base URL')).toBe(1);
    expect(done).not.toContain('SECRET');
    expect(done).not.toContain(GOOD);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${BAD}`, `Bearer ${GOOD}`]);
    const saved = JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as {
      profiles: Record<string, { apiKey: string; baseUrl: string }>;
    };
    expect(saved.profiles.default).toEqual({ baseUrl: server.url, apiKey: GOOD });
  });

  it('asks before replacing the key of a saved profile; n changes nothing', async () => {
    mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({ defaultProfile: 'ro', profiles: { ro: { baseUrl: server.url, apiKey: GOOD } } }),
      {
        mode: 0o600,
      },
    );
    await runInPane('replace', ['auth', 'login', '--profile', 'ro']);
    const asked = await waitFor('replace', (s) => s.includes('(y/N)'), 'the question');
    expect(asked).toBe('? Profile "ro" already has the key service_pk_…1111. Replace it? (y/N)');
    await tmux('send-keys', '-t', 'replace', 'n', 'Enter');
    const done = await waitFor('replace', (s) => /\[exit \d+\]/.test(s), 'rfs to exit');
    expect(done.split('\n').slice(0, 3)).toEqual([
      '✔ Profile "ro" already has the key service_pk_…1111. Replace it? No',
      'Nothing changed.',
      '[exit 0]',
    ]);
    expect(server.requests).toHaveLength(2);
  });
});
