// Shared by the benchmarks: start a sandbox child, run hyperfine, read medians, time and
// measure a command's peak RSS. Everything started here is stopped by stopAll().
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RFS = join(ROOT, 'bin', 'rfs.js');
const running = new Set();

export function stopAll() {
  for (const child of running) child.kill('SIGTERM');
  running.clear();
}
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** `rfs sandbox --port 0 …`; resolves with {baseUrl, apiKeys, stop}. */
export async function sandbox(args) {
  const child = spawn(process.execPath, [RFS, 'sandbox', '--port', '0', '--seed', 'bench', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  running.add(child);
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  const info = JSON.parse(line);
  return {
    ...info,
    stop: () =>
      new Promise((resolve) => {
        running.delete(child);
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Runs hyperfine over named commands in several rounds, the order rotated each round, and
 * returns [{name, median, runs}] in seconds over every run of every round. hyperfine times one
 * command's runs back to back; on a shared machine the load drifts between those blocks, and
 * rounds keep that drift from landing on one command only.
 */
export function hyperfine(commands, { runs = 40, rounds = 4, warmup = 3, env = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rfs-bench-'));
  const times = new Map(commands.map((c) => [c.name, []]));
  const perRound = Math.max(5, Math.ceil(runs / rounds));
  for (let round = 0; round < rounds; round++) {
    const order = commands.map((_, i) => commands[(i + round) % commands.length]);
    const out = join(dir, `h${round}.json`);
    const args = ['-N', '--warmup', String(warmup), '--runs', String(perRound), '--export-json', out, '--style', 'none'];
    for (const c of order) args.push('-n', c.name, c.command);
    execFileSync('hyperfine', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
    for (const r of JSON.parse(readFileSync(out, 'utf8')).results) times.get(r.command).push(...r.times);
  }
  rmSync(dir, { recursive: true, force: true });
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  return commands.map((c) => ({ name: c.name, median: median(times.get(c.name)), runs: times.get(c.name).length }));
}

/** Runs a command to completion; resolves with wall time (s), peak RSS (MB), exit code and counted stdout lines. */
export function measure(command, args, { env = {}, countLines = true } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // GNU time reports the peak resident set size of the command itself (%M, in KB).
    const child = spawn('/usr/bin/time', ['-f', '%M', command, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      if (countLines) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => {
      running.delete(child);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const kb = Number(stderr.trim().split('\n').at(-1));
      resolve({ code, seconds, rssMB: kb / 1024, lines, stderr });
    });
  });
}

export function fmt(n, digits = 1) {
  return Number(n).toFixed(digits);
}

export function ms(seconds) {
  return `${(seconds * 1000).toFixed(1)} ms`;
}

/** A markdown table from a header row and rows. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
