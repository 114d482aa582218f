// Start-up: rfs --version, --help, and one page of `recordings list -o json` from a local
// sandbox, each against `node -e 0` (and the page against curl), measured side by side in one
// hyperfine run: absolute times drift on a shared machine, ratios hold.
// Targets: --version ≤ 1.15× node; the list ≤ 1.6× node; the single executable ≤ 1.5× node.
import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazyRequires } from '../scripts/lazy-requires.mjs';
import { hyperfine, ms, RFS, ROOT, sandbox, fmt } from './lib.mjs';

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
    plugins: [lazyRequires],
    banner: { js: "import { createRequire as __rfsCreateRequire } from 'node:module'; const require = __rfsCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

export async function startup() {
  const work = mkdtempSync(join(tmpdir(), 'rfs-bench-floor-'));
  const bundledFloor = await bundleFloor(work);
  const sb = await sandbox(['--rate-limit', '0']);
  const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: '/nonexistent-rfs-bench' };
  const node = process.execPath;
  const url = `${sb.baseUrl}/api/v1/recordings?limit=50`;
  // Two groups, each with its own `node -e 0`: commands that only start, and commands that
  // fetch a page (they keep the sandbox busy, which would disturb the first group's timings).
  const local = [
    { name: 'node -e 0', command: `${node} -e 0` },
    { name: 'rfs --version', command: `${node} ${RFS} --version` },
    { name: 'rfs --help', command: `${node} ${RFS} --help` },
  ];
  const sea = join(ROOT, 'dist', 'rfs-linux-x64');
  if (existsSync(sea)) {
    local.push({ name: 'rfs-linux-x64 --version', command: `${sea} --version` }, { name: 'rfs-linux-x64 --help', command: `${sea} --help` });
  }
  const network = [
    { name: 'node -e 0 (network group)', command: `${node} -e 0` },
    { name: 'rfs recordings list -o json', command: `${node} ${RFS} recordings list -o json` },
    { name: 'curl (same page)', command: `curl -sf -o /dev/null -H "Authorization: Bearer ${sb.apiKeys.admin}" ${url}` },
    // Floors: the same page fetched and printed by a bare script, with node:http and undici.
    { name: 'floor: node:http script', command: `${node} ${join(ROOT, 'bench', 'floor-http.mjs')}` },
    { name: 'floor: undici script', command: `${node} ${join(ROOT, 'bench', 'floor-undici.mjs')}` },
    { name: 'floor: undici script, bundled', command: `${node} ${bundledFloor}` },
  ];
  if (existsSync(sea)) network.push({ name: 'rfs-linux-x64 recordings list -o json', command: `${sea} recordings list -o json` });
  let results;
  let networkResults;
  try {
    results = hyperfine(local, { runs: 60, rounds: 6, env });
    networkResults = hyperfine(network, { runs: 40, rounds: 4, env });
  } finally {
    await sb.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const localBase = results.find((r) => r.name === 'node -e 0').median;
  const networkBase = networkResults.find((r) => r.name.startsWith('node -e 0')).median;
  const curl = networkResults.find((r) => r.name.startsWith('curl')).median;
  const targets = { 'rfs --version': 1.15, 'rfs --help': 1.15, 'rfs recordings list -o json': 1.6, 'rfs-linux-x64 --version': 1.5, 'rfs-linux-x64 --help': 1.5 };
  const row = (r, base) => {
    const target = targets[r.name];
    const ratio = r.median / base;
    const network = r.name.includes('recordings list') || r.name.startsWith('floor');
    return [r.name, ms(r.median), `${fmt(ratio, 2)}×`, network ? `${fmt(r.median / curl, 2)}×` : '', target ? `≤ ${target}× ${ratio <= target ? 'met' : 'MISSED'}` : ''];
  };
  const rows = [...results.map((r) => row(r, localBase)), ...networkResults.map((r) => row(r, networkBase))];
  return { header: ['command', 'median', 'vs node -e 0', 'vs curl', 'target'], rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { header, rows } = await startup();
  console.log([header, ...rows].map((r) => r.join('  ')).join('\n'));
}
