// rfs in a real terminal: a private tmux server (its own socket, its own folder), panes that run
// rfs through sh (which prints `[exit N]` once rfs has ended: tmux can mark a pane dead before it
// has collected the exit status), and screens read with capture-pane, to be compared exactly.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RFS_BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));

export interface Terminal {
  /** Runs `rfs <args>` in a new pane of this size; `stdoutTo` sends its stdout to that file (sh's `>`). */
  run(name: string, args: string[], size: { columns: number; rows: number }, o?: { stdoutTo?: string }): Promise<void>;
  keys(name: string, ...keys: string[]): Promise<void>;
  /** Resizes the pane's window, as a user dragging the terminal's corner (rfs gets SIGWINCH). */
  resize(name: string, size: { columns: number; rows: number }): Promise<void>;
  /** The pane's text, lines trimmed at the right, trailing blank lines dropped. */
  screen(name: string): Promise<string>;
  /** Polls the screen until `check` holds (10 s at most). */
  waitFor(name: string, check: (screen: string) => boolean, what: string): Promise<string>;
  /**
   * As waitFor, and also until the pane's terminal is in raw mode: a prompt that reads keys now.
   * Keys typed before that reach a terminal still in its own line mode, which echoes them (a
   * masked key in clear) and may hand them to the prompt late or not at all.
   */
  waitForInput(name: string, check: (screen: string) => boolean, what: string): Promise<string>;
  exitStatus(name: string): Promise<number>;
  /** The pane's title, as an OSC 0 or 2 sequence sets it (tmux keeps it per pane). */
  title(name: string): Promise<string>;
  /** The pid of rfs, the one child of the pane's sh (read it before a Ctrl-C, which ends sh too). */
  commandPid(name: string): Promise<number>;
  /**
   * Polls until that process has exited (10 s at most): after a Ctrl-C tmux may take long to
   * call the pane dead; the process itself is what counts.
   */
  waitForExit(pid: number): Promise<void>;
  /** Stops the server, by its pid too. */
  stop(): Promise<void>;
}

/**
 * A clean environment for a terminal under `home`: nothing of the developer's own config, key,
 * colours or tmux leaks in; local times in UTC; rfs's config in `home`/config. `extra` adds to it.
 */
export function terminalEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMUX_TMPDIR: home,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    NO_COLOR: '1',
    RFS_CONFIG_DIR: join(home, 'config'),
    ...extra,
  };
}

/** `env` is the whole environment of the server and of every pane. */
export async function startTerminal(env: NodeJS.ProcessEnv): Promise<Terminal> {
  const socket = `rfs-tty-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env, timeout: 5000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args.join(' ')}: ${error.message} ${stderr}`));
        else resolve(stdout);
      });
    });
  await tmux('new-session', '-d', '-s', 'hold', '-x', '80', '-y', '12', '--', 'cat');
  const serverPid = Number((await tmux('display-message', '-p', '-t', 'hold', '#{pid}')).trim());
  await tmux('set-option', '-g', 'remain-on-exit', 'on');

  const screen = async (name: string): Promise<string> => {
    // -J: a line wider than the pane is shown as the one line it is.
    const lines = (await tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', name)).split('\n').map((l) => l.trimEnd());
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  };
  const waitFor = async (name: string, check: (s: string) => boolean, what: string): Promise<string> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const s = await screen(name);
      if (check(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** Whether the pane's terminal reads keys one by one without echoing them (a prompt's raw mode). */
  const rawMode = async (name: string): Promise<boolean> => {
    const tty = (await tmux('display-message', '-p', '-t', name, '#{pane_tty}')).trim();
    const settings = await new Promise<string>((resolve, reject) => {
      execFile('stty', ['-F', tty, '-a'], { timeout: 5000 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
    });
    const flags = settings.split(/[\s;]+/);
    return flags.includes('-icanon') && flags.includes('-echo');
  };
  const waitForInput = async (name: string, check: (s: string) => boolean, what: string): Promise<string> => {
    const shown = await waitFor(name, check, what);
    const deadline = Date.now() + 10_000;
    while (!(await rawMode(name))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} to take input (the terminal stayed in line mode)`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return shown;
  };
  return {
    async run(name, args, { columns, rows }, o = {}) {
      const argv = [process.execPath, RFS_BIN, ...args].map((a) => `'${a}'`).join(' ');
      const command = o.stdoutTo === undefined ? argv : `${argv} > '${o.stdoutTo}'`;
      await tmux(
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        String(columns),
        '-y',
        String(rows),
        '--',
        'sh',
        '-c',
        `${command}; echo "[exit $?]"`,
      );
    },
    async keys(name, ...keys) {
      await tmux('send-keys', '-t', name, ...keys);
    },
    async resize(name, { columns, rows }) {
      await tmux('resize-window', '-t', name, '-x', String(columns), '-y', String(rows));
    },
    screen,
    waitFor,
    waitForInput,
    async commandPid(name) {
      const sh = (await tmux('display-message', '-p', '-t', name, '#{pane_pid}')).trim();
      // The pane's sh runs rfs as its one child (Linux lists a task's children in /proc).
      const children = await readFile(`/proc/${sh}/task/${sh}/children`, 'utf8');
      const pid = Number(children.trim().split(/\s+/)[0]);
      if (!(pid > 1)) throw new Error(`no command runs in pane ${name} (sh ${sh})`);
      return pid;
    },
    async waitForExit(pid) {
      const alive = (): boolean => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 10_000;
      while (alive()) {
        if (Date.now() > deadline) throw new Error(`rfs (pid ${pid}) did not exit`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async title(name) {
      return (await tmux('display-message', '-p', '-t', name, '#{pane_title}')).trim();
    },
    async exitStatus(name) {
      const s = await waitFor(name, (text) => /\[exit \d+\]/.test(text), 'rfs to exit');
      return Number(/\[exit (\d+)\]/.exec(s)?.[1]);
    },
    async stop() {
      await tmux('kill-server').catch(() => undefined);
      if (serverPid > 1) {
        try {
          process.kill(serverPid, 'SIGKILL');
        } catch {
          // Gone, as it should be.
        }
      }
    },
  };
}

/** The lines rfs left on the screen: up to sh's `[exit N]` line. */
export function rfsLines(text: string): string[] {
  const lines = text.split('\n');
  const end = lines.findIndex((l) => /^\[exit \d+\]$/.test(l));
  return end < 0 ? lines : lines.slice(0, end);
}
