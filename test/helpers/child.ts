// Runs the built CLI (bin/rfs.js → dist/) as a child process, as a user or a script would.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const RFS_BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runRfs(args: string[], o: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RFS_BIN, ...args], {
      env: { PATH: process.env.PATH, ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 15_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(o.stdin ?? '');
  });
}

export interface SandboxProcess {
  child: ChildProcess;
  baseUrl: string;
  apiKeys: Record<string, string>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `rfs sandbox --port 0 …` as a child; resolves with its JSON line. */
export async function startSandboxProcess(args: string[] = []): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [RFS_BIN, 'sandbox', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}: ${stderr}`)));
  });
  const parsed = JSON.parse(line) as { baseUrl: string; apiKeys: Record<string, string> };
  return {
    child,
    ...parsed,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

export interface LiveChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

/** The built CLI as a long-running child (watch, sync): output read as it comes, the stdout's tail kept. */
export function spawnRfs(args: string[], env: NodeJS.ProcessEnv, keep: ChildProcess[]): LiveChild {
  const child = spawn(process.execPath, [RFS_BIN, ...args], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  keep.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    // Only the tail is kept: a long run prints a lot.
    out = (out + c.toString('utf8')).slice(-100_000);
  });
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** SIGKILLs what is still running of `children`, waiting for each to go. */
export async function killAll(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGKILL');
      await gone;
    }
  }
}
