// Start-up: rfs --version, --help, and one page of `recordings list -o json` from a local
// sandbox, each against `node -e 0` (and the page against curl), run interleaved: absolute
// times drift on a shared machine, and a ratio of runs made moments apart holds.
// Targets (issue 24): --version and --help ≤ 1.1× node; the list ≤ 1.5× node; the single
// executable ≤ 1.4× node.
//
// `before`: another checkout, built (and its single executable packaged), whose rows run in the
// same rounds, so that a change is measured before and after in one run:
//   node bench/run.mjs start-up --before <checkout>
import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { interleaved, ms, RFS, ROOT, sandbox, fmt } from './lib.mjs';

/** floor-undici.mjs bundled as scripts/build.mjs bundles the CLI (one ESM file, minified). */
async function bundleFloor(dir) {
  const outfile = join(dir, 'floor-undici.mjs');
  await build({
    entryPoints: [join(ROOT, 'bench', 'floor-undici.mjs')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    banner: {
      js: "import { createRequire as __rfsCreateRequire } from 'node:module'; const require = __rfsCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

/** Rounds per group: each runs every command of the group once. */
const ROUNDS = 60;

export async function startup({ before } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'rfs-bench-floor-'));
  const bundledFloor = await bundleFloor(work);
  const sb = await sandbox(['--rate-limit', '0']);
  const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: '/nonexistent-rfs-bench' };
  const node = process.execPath;
  const url = `${sb.baseUrl}/api/v1/recordings?limit=50`;
  const cmd = (name, file, ...args) => ({ name, file, args });
  // Two groups, each with its own `node -e 0`: commands that only start, and commands that
  // fetch a page (they keep the sandbox busy, which would disturb the first group's timings).
  const local = [cmd('node -e 0', node, '-e', '0'), cmd('rfs --version', node, RFS, '--version'), cmd('rfs --help', node, RFS, '--help')];
  const sea = join(ROOT, 'dist', 'rfs-linux-x64');
  if (existsSync(sea)) local.push(cmd('rfs-linux-x64 --version', sea, '--version'), cmd('rfs-linux-x64 --help', sea, '--help'));
  const old = before === undefined ? undefined : resolve(before);
  const oldRfs = old && join(old, 'bin', 'rfs.js');
  const oldSea = old && join(old, 'dist', 'rfs-linux-x64');
  if (old) {
    local.push(cmd('before: rfs --version', node, oldRfs, '--version'), cmd('before: rfs --help', node, oldRfs, '--help'));
    if (existsSync(oldSea)) local.push(cmd('before: rfs-linux-x64 --help', oldSea, '--help'));
  }
  const network = [
    cmd('node -e 0 (network group)', node, '-e', '0'),
    cmd('rfs recordings list -o json', node, RFS, 'recordings', 'list', '-o', 'json'),
    cmd('curl (same page)', 'curl', '-sf', '-o', '/dev/null', '-H', `Authorization: Bearer ${sb.apiKeys.admin}`, url),
    // Floors: the same page fetched and printed by a bare script, with node:http and undici.
    cmd('floor: node:http script', node, join(ROOT, 'bench', 'floor-http.mjs')),
    cmd('floor: undici script', node, join(ROOT, 'bench', 'floor-undici.mjs')),
    cmd('floor: undici script, bundled', node, bundledFloor),
  ];
  // The before checkout's own undici floor, where it has one: undici as rfs used to load it.
  const oldFloor = old && join(old, 'bench', 'floor-undici.mjs');
  if (old && existsSync(oldFloor)) network.push(cmd('before: floor: undici script (its own)', node, oldFloor));
  if (existsSync(sea)) network.push(cmd('rfs-linux-x64 recordings list -o json', sea, 'recordings', 'list', '-o', 'json'));
  if (old) {
    network.push(cmd('before: rfs recordings list -o json', node, oldRfs, 'recordings', 'list', '-o', 'json'));
    if (existsSync(oldSea)) network.push(cmd('before: rfs-linux-x64 recordings list -o json', oldSea, 'recordings', 'list', '-o', 'json'));
  }
  let results;
  let networkResults;
  try {
    results = interleaved(local, { rounds: ROUNDS, env });
    networkResults = interleaved(network, { rounds: ROUNDS, env });
  } finally {
    await sb.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const targets = {
    'rfs --version': 1.1,
    'rfs --help': 1.1,
    'rfs recordings list -o json': 1.5,
    'rfs-linux-x64 --version': 1.4,
    'rfs-linux-x64 --help': 1.4,
    'rfs-linux-x64 recordings list -o json': 1.4,
  };
  const row = (r, base) => {
    const target = targets[r.name];
    const ratio = r.ratio(base);
    const fetches = r.name.includes('recordings list') || r.name.includes('floor:');
    return [
      r.name,
      ms(r.median),
      `${fmt(ratio, 3)}×`,
      fetches ? `${fmt(r.ratio('curl (same page)'), 2)}×` : '',
      target ? `≤ ${target}× ${ratio <= target ? 'met' : 'MISSED'}` : '',
    ];
  };
  const rows = [...results.map((r) => row(r, 'node -e 0')), ...networkResults.map((r) => row(r, 'node -e 0 (network group)'))];
  return { header: ['command', 'median', 'vs node -e 0', 'vs curl', 'target'], rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--before');
  const { header, rows } = await startup({ before: at === -1 ? undefined : process.argv[at + 1] });
  console.log([header, ...rows].map((r) => r.join('  ')).join('\n'));
}
