// rfs in a real terminal: the built CLI runs inside a private tmux server (80×30 panes), keys
// are typed with send-keys and the screen is read back with capture-pane, as a new user would
// see it. The assertions are about properties of the screen (the key never shows, no line is
// wider than the pane, the question is asked), not exact screens: ids vary from run to run.
// The last capture of each session is saved under test/tty/captures/ for a person to look at.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalEnv } from '../helpers/tmux.js';
import { start, type Harness } from '../sandbox/helpers.js';
import { needs, TMUX } from '../helpers/platform.js';

const RFS_BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));
const CAPTURES = fileURLToPath(new URL('./captures/', import.meta.url));
const COLUMNS = 80;
const ROWS = 30;
const LONG_TITLE = 'A very long title for a recording that cannot fit in an eighty-column terminal table';

let h: Harness;
let home: string;
let socket: string;
let tmuxEnv: NodeJS.ProcessEnv;
let serverStarted = false;
let serverPid = 0;
/** Pids of every process a pane ran, so that afterAll can check none outlives the server. */
const panePids = new Set<number>();

function tmux(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: tmuxEnv, timeout: 5000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`tmux ${args.join(' ')}: ${error.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Runs `rfs <args>` in a new 80×30 session; the pane stays (dead) after rfs exits, for capture. */
async function runInPane(name: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await tmux('new-session', '-d', '-s', name, '-x', String(COLUMNS), '-y', String(ROWS), ...vars, '--', process.execPath, RFS_BIN, ...args);
  panePids.add(Number((await tmux('display-message', '-p', '-t', name, '#{pane_pid}')).trim()));
}

/** The whole pane, history included, with wrapped lines joined back (so an over-wide line shows as one). */
async function capture(name: string, o: { join?: boolean } = {}): Promise<string[]> {
  const text = await tmux('capture-pane', '-p', ...(o.join === false ? [] : ['-J']), '-S', '-', '-E', '-', '-t', name);
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Polls the screen until `check` holds; fails with the last screen after the timeout. */
async function waitForScreen(
  name: string,
  check: (screen: string) => boolean,
  what: string,
  seen?: string[],
  timeoutMs = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = (await capture(name)).join('\n');
    seen?.push(screen);
    if (check(screen)) return screen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for rfs to exit in the pane; returns its exit status. */
async function waitForExit(name: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [dead, status, signal] = (await tmux('display-message', '-p', '-t', name, '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}'))
      .trim()
      .split(':');
    if (dead === '1' && status) return Number(status);
    if (dead === '1' && signal) throw new Error(`rfs was killed by signal ${signal} in ${name}`);
    // Dead (its terminal closed) but not reaped: Debian's tmux is built with libutempter, whose
    // own SIGCHLD handler, installed while tmux drops the pane's utmp record, can swallow the
    // child's SIGCHLD (tmux/tmux#311). Nudging the server makes it waitpid() again.
    if (dead === '1') process.kill(serverPid, 'SIGCHLD');
    if (Date.now() > deadline) throw new Error(`rfs did not exit in ${name}; the screen was:\n${(await capture(name)).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function typeText(name: string, text: string): Promise<void> {
  await tmux('send-keys', '-t', name, '-l', text);
}

async function pressKey(name: string, key: string): Promise<void> {
  await tmux('send-keys', '-t', name, key);
}

function saveCapture(file: string, screen: string): void {
  mkdirSync(CAPTURES, { recursive: true });
  writeFileSync(join(CAPTURES, file), `${screen}\n`);
}

/** Terminal cells of a captured line: one per character (the output here has no wide characters). */
function cells(line: string): number {
  return [...line.normalize('NFC')].length;
}

/** Running, or stopped: not gone and not a zombie (a zombie has exited and only waits to be reaped). */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

beforeAll(async () => {
  h = await start({ rateLimit: 0, seed: 42, recordings: 25 });
  home = mkdtempSync(join(tmpdir(), 'rfs-tty-'));
  socket = `rfs-tty-${process.pid}-${randomBytes(4).toString('hex')}`;
  tmuxEnv = terminalEnv(home);
  // A placeholder session keeps the server up; dead panes stay on screen to be captured.
  await tmux('new-session', '-d', '-s', 'hold', '-x', String(COLUMNS), '-y', String(ROWS), '--', 'cat');
  serverStarted = true;
  serverPid = Number((await tmux('display-message', '-p', '-t', 'hold', '#{pid}')).trim());
  if (!(Number.isInteger(serverPid) && serverPid > 1)) throw new Error(`no tmux server pid: ${serverPid}`);
  panePids.add(Number((await tmux('display-message', '-p', '-t', 'hold', '#{pane_pid}')).trim()));
  await tmux('set-option', '-g', 'remain-on-exit', 'on');
});

afterAll(async () => {
  try {
    if (serverStarted) await tmux('kill-server').catch(() => undefined);
    // kill-server hangs up every pane; make sure nothing it ran is left behind.
    const deadline = Date.now() + 3000;
    while ([...panePids].some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const pid of panePids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  } finally {
    await h?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  }
});

describe.skipIf(!TMUX.met)(needs(TMUX, 'rfs in an 80-column terminal (tmux)'), () => {
  it('auth login asks for the base URL and a masked key, never shows the key, and saves the profile', async () => {
    const key = h.keys.admin;
    const screens: string[] = [];
    await runInPane('login', ['auth', 'login']);

    await waitForScreen('login', (s) => s.includes('? Service base URL'), 'the base URL prompt', screens);
    await typeText('login', h.base);
    await pressKey('login', 'Enter');
    await waitForScreen('login', (s) => s.includes('? API key (service_pk_…)'), 'the key prompt', screens);

    // Half the key: the prompt shows exactly that many masks and none of the characters.
    const half = Math.floor(key.length / 2);
    await typeText('login', key.slice(0, half));
    const typing = await waitForScreen(
      'login',
      (s) => {
        if (s.includes(key.slice(0, half))) throw new Error('the key shows on screen as it is typed');
        return s.includes(`? API key (service_pk_…) ${'*'.repeat(half)}`);
      },
      'the masked half key',
      screens,
    );
    expect(typing).not.toMatch(new RegExp(`\\*{${half + 1}}`));
    await typeText('login', key.slice(half));
    await waitForScreen('login', (s) => s.includes(`? API key (service_pk_…) ${'*'.repeat(key.length)}`), 'the masked key', screens);
    await pressKey('login', 'Enter');

    expect(await waitForExit('login')).toBe(0);
    const screen = (await capture('login')).join('\n');
    screens.push(screen);
    saveCapture('auth-login.txt', screen);

    expect(screen).toContain(`Service base URL ${h.base}`);
    expect(screen).toMatch(/^Profile\s+default \(default\)$/m);
    expect(screen).toMatch(new RegExp(`^Base URL\\s+${h.base.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(screen).toMatch(new RegExp(`^Key\\s+service_pk_…${key.slice(-4)}$`, 'm'));
    expect(screen).toMatch(/^Check\s+ok$/m);
    // Not the key, nor any 6 characters of its secret part, on any screen seen along the way.
    const secret = key.slice('service_pk_'.length);
    for (const s of screens) {
      expect(s).not.toContain(key);
      for (let i = 0; i + 6 <= secret.length; i++) expect(s).not.toContain(secret.slice(i, i + 6));
    }

    const file = join(home, 'config', 'config.json');
    expect(screen).toContain(`Saved to ${file}`);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, { baseUrl: string; apiKey: string }> };
    expect(saved.profiles.default).toMatchObject({ baseUrl: h.base, apiKey: key });
  });

  it('recordings list fits 80 columns, with long titles cut by an ellipsis', async () => {
    const created = await h.control('/recordings', { title: LONG_TITLE, status: 'COMPLETED' });
    expect(created.status).toBe(201);
    const longId = created.json.data.id as string;

    await runInPane('list', ['recordings', 'list'], { RFS_BASE_URL: h.base, RFS_API_KEY: h.keys.admin });
    expect(await waitForExit('list')).toBe(0);
    const lines = await capture('list');
    saveCapture('recordings-list.txt', lines.join('\n'));

    // Joined lines are the pane's rows: nothing was wrapped, so nothing was wider than the pane.
    const text = (l: string[]): string[] => l.filter((line) => line !== '');
    expect(text(lines)).toEqual(text(await capture('list', { join: false })));
    for (const line of lines) expect(cells(line), line).toBeLessThanOrEqual(COLUMNS);
    // cli.md Output: whole columns go before TITLE is cut below 24 cells; first those the
    // filter fixes (STATUS and, unsynced, FILED), then MATTER, CLIENT, AUTHOR.
    expect(lines[0]).toMatch(/^ID\s+TITLE\s+PRIORITY\s+UPDATED$/);

    const rows = lines.filter((l) => /^rec_\S+\s{2}/.test(l));
    const expected = (await h.api('/recordings?limit=50')).json.data as { id: string }[];
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(expected.map((r) => r.id));
    const longRow = rows.find((l) => l.startsWith(`${longId} `));
    expect(longRow).toBeDefined();
    const titleCell = longRow!.slice(lines[0]!.indexOf('TITLE')).split(/\s{2,}/)[0]!;
    expect(titleCell).toMatch(/^A very long title\b.*…$/);
    expect(LONG_TITLE.startsWith(titleCell.slice(0, -1))).toBe(true);
    expect(rows.filter((l) => l.includes('…')).length).toBeGreaterThanOrEqual(1);
  });

  // the question names the subscription's URL, not only its id.
  it('webhooks delete asks first, naming the URL: "n" keeps the subscription, "y" deletes it', async () => {
    const env = { RFS_BASE_URL: h.base, RFS_API_KEY: h.keys.admin };
    const created = await h.api('/webhooks', {
      body: { url: 'http://127.0.0.1:9/x', events: ['recording.completed'] },
      headers: { 'Idempotency-Key': `tty-${randomUUID()}` },
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id as string;
    const listed = async (): Promise<string[]> => ((await h.api('/webhooks')).json.data as { id: string }[]).map((w) => w.id);
    expect(await listed()).toContain(id);
    const question = `? Delete webhook subscription ${id} (http://127.0.0.1:9/x)? (y/N)`;

    await runInPane('del-n', ['webhooks', 'delete', id], env);
    await waitForScreen('del-n', (s) => s.replace(/\s+/g, ' ').includes(question), 'the confirmation question');
    await typeText('del-n', 'n');
    await pressKey('del-n', 'Enter');
    expect(await waitForExit('del-n')).toBe(0);
    const kept = (await capture('del-n')).join('\n');
    saveCapture('webhooks-delete-no.txt', kept);
    expect(kept.replace(/\s+/g, ' ')).toContain(`Delete webhook subscription ${id} (http://127.0.0.1:9/x)? No`);
    expect(kept).toMatch(/^Not deleted\.$/m);
    expect(kept).not.toMatch(/^Deleted\s/m);
    expect(await listed()).toContain(id);

    await runInPane('del-y', ['webhooks', 'delete', id], env);
    await waitForScreen('del-y', (s) => s.replace(/\s+/g, ' ').includes(question), 'the confirmation question');
    await typeText('del-y', 'y');
    await pressKey('del-y', 'Enter');
    expect(await waitForExit('del-y')).toBe(0);
    const gone = (await capture('del-y')).join('\n');
    saveCapture('webhooks-delete-yes.txt', gone);
    expect(gone.replace(/\s+/g, ' ')).toContain(`Delete webhook subscription ${id} (http://127.0.0.1:9/x)? Yes`);
    expect(gone).toMatch(new RegExp(`^Deleted\\s+${id}$`, 'm'));
    expect(await listed()).not.toContain(id);
  });
});
