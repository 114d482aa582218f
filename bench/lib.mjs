// Shared by the benchmarks: start a sandbox child, time short commands interleaved, time and
// measure a command's peak RSS. Everything started here is stopped by stopAll().
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  const child = spawn(process.execPath, [RFS, 'sandbox', '--port', '0', '--seed', 'bench', ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
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
 * Times short commands interleaved: every round runs each command once, in an order rotated
 * round by round, with output discarded (as `hyperfine -N` does). Returns, per command, the
 * median wall time in seconds and `ratio(other)`: the median over rounds of this command's time
 * divided by `other`'s in the same round. On a shared machine the speed drifts over seconds
 * (here `node -e 0` alone moves between about 60 and 90 ms); a ratio of runs made moments apart
 * follows that drift in both, where medians of separate blocks of runs do not.
 */
export function interleaved(commands, { rounds = 60, warmup = 3, env = {} } = {}) {
  const times = commands.map(() => []);
  const environment = { ...process.env, ...env };
  const run = (command) => {
    const started = process.hrtime.bigint();
    const r = spawnSync(command.file, command.args, { stdio: 'ignore', env: environment });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (r.status !== 0) {
      const again = spawnSync(command.file, command.args, { encoding: 'utf8', env: environment });
      throw new Error(`${command.name} failed (${r.status ?? r.signal}): ${again.stderr}`);
    }
    return seconds;
  };
  for (let i = 0; i < warmup; i++) for (const c of commands) run(c);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < commands.length; k++) {
      const index = (k + round) % commands.length;
      times[index].push(run(commands[index]));
    }
  }
  const byName = new Map(commands.map((c, i) => [c.name, times[i]]));
  return commands.map((c, i) => ({
    name: c.name,
    median: median(times[i]),
    runs: times[i].length,
    ratio: (other) => median(times[i].map((t, round) => t / byName.get(other)[round])),
  }));
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs a command to completion; resolves with wall time (s), peak RSS (MB), exit code and counted stdout lines. */
export function measure(command, args, { env = {}, countLines = true } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // GNU time reports the peak resident set size of the command itself (%M, in KB).
    const child = spawn('/usr/bin/time', ['-f', '%M', command, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

const RESULTS = join(ROOT, 'bench', 'RESULTS.md');

/** RESULTS.md as its header (before the first `## `) and its sections, each with its title. */
export function readResults() {
  const text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
  const [head, ...rest] = text.split(/^(?=## )/m);
  return {
    head: head.trimEnd(),
    sections: rest.map((body) => ({ title: body.slice(3, body.indexOf('\n')).trim(), body: body.trimEnd() })),
  };
}

/** One section of RESULTS.md, as run.mjs writes them. */
export function sectionText(title, how, r) {
  return [`## ${title}`, '', how, '', table(r.header, r.rows), '', ...(r.verdicts ?? []).map((v) => `- ${v}`)].join('\n');
}

/**
 * Puts one section into RESULTS.md (a benchmark run on its own, such as bench:sync), in place
 * of the one with that title or at the end, leaving every other section as it is.
 */
export function writeSection(title, how, r) {
  const text = sectionText(title, how, r);
  const { head, sections } = readResults();
  const at = sections.findIndex((s) => s.title === title);
  if (at === -1) sections.push({ title, body: text });
  else sections[at] = { title, body: text };
  writeFileSync(RESULTS, `${[head, ...sections.map((s) => s.body)].join('\n\n')}\n`);
  return text;
}
