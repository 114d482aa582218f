// --jq as a process (cli.md, Output): memory bounded while a program prints 10 million lines,
// Ctrl-C ending a program that never stops with 130 at once, and `| head -1` ending the run as
// soon as the first line is read. Against the built CLI (node bin/rfs.js) and a sandbox on
// 127.0.0.1:0. Targets (issue 22): peak RSS under 150 MB, Ctrl-C within 1 s. Figures go to
// bench/RESULTS.md by hand.
//
//   npm run build && node bench/jq-stream.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/index.js';

const BIN = fileURLToPath(new URL('../bin/rfs.js', import.meta.url));
const sandbox = await startSandbox({ port: 0, seed: 'jq-bench', recordings: 5 });
const dir = mkdtempSync(join(tmpdir(), 'rfs-jq-bench-'));
const env = { ...process.env, RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin, RFS_CONFIG_DIR: dir };
const one = ['recordings', 'list', '--limit', '1'];

/** Runs rfs under GNU time; resolves with its exit code, peak RSS (MB) and wall time (s). */
function measured(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%M %e', process.execPath, BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const [kb, seconds] = err.trim().split('\n').at(-1).split(' ').map(Number);
      resolve({ code, rssMb: kb / 1024, seconds });
    });
  });
}

/** Starts `repeat(.)`, waits until it has printed, sends SIGINT, times the exit. */
function interrupted() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...one, '--jq', 'repeat(.)'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let sent = 0;
    child.stdout.on('data', () => {
      if (sent) return;
      sent = performance.now();
      child.kill('SIGINT');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ms: performance.now() - sent }));
  });
}

/** `rfs … --jq 'range(2000000)' | head -1`: time to the first line and to the end of rfs. */
function headOne() {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [BIN, ...one, '--jq', 'range(2000000)'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let first;
    child.stdout.once('data', () => {
      first = performance.now() - start;
      child.stdout.destroy();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, firstMs: first, endMs: performance.now() - start }));
  });
}

try {
  const plain = await measured([...one, '--jq', '.id']);
  const big = await measured([...one, '--jq', 'range(1e7)']);
  const ctrlC = await interrupted();
  const head = await headOne();
  console.log(`| --jq '.id' (one item) | exit ${plain.code} | ${plain.seconds.toFixed(2)} s | ${plain.rssMb.toFixed(0)} MB |`);
  console.log(
    `| --jq 'range(1e7)' (10,000,000 lines) | exit ${big.code} | ${big.seconds.toFixed(2)} s | ${big.rssMb.toFixed(0)} MB (target < 150 MB: ${big.rssMb < 150 ? 'met' : 'MISSED'}) |`,
  );
  console.log(
    `| --jq 'repeat(.)', SIGINT after its first output | exit ${ctrlC.code ?? ctrlC.signal} | ${ctrlC.ms.toFixed(0)} ms to exit (target ≤ 1 s: ${ctrlC.code === 130 && ctrlC.ms <= 1000 ? 'met' : 'MISSED'}) | |`,
  );
  console.log(
    `| --jq 'range(2000000)' \\| head -1 | exit ${head.code} | first line ${head.firstMs.toFixed(0)} ms, rfs ended ${head.endMs.toFixed(0)} ms | |`,
  );
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
