// Start-up: rfs --version, --help, and one page of `recordings list -o json` from a local
// sandbox, each against `node -e 0` (and the page against curl), measured side by side in one
// hyperfine run: absolute times drift on a shared machine, ratios hold.
// Targets: --version ≤ 1.15× node; the list ≤ 1.6× node; the single executable ≤ 1.5× node.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hyperfine, ms, RFS, ROOT, sandbox, fmt } from './lib.mjs';

export async function startup() {
  const sb = await sandbox(['--rate-limit', '0']);
  const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: '/nonexistent-rfs-bench' };
  const node = process.execPath;
  const url = `${sb.baseUrl}/api/v1/recordings?limit=50`;
  const commands = [
    { name: 'node -e 0', command: `${node} -e 0` },
    { name: 'rfs --version', command: `${node} ${RFS} --version` },
    { name: 'rfs --help', command: `${node} ${RFS} --help` },
    { name: 'rfs recordings list -o json', command: `${node} ${RFS} recordings list -o json` },
    { name: 'curl (same page)', command: `curl -sf -o /dev/null -H "Authorization: Bearer ${sb.apiKeys.admin}" ${url}` },
    // Floors: the same page fetched and printed by a bare script, with node:http and undici.
    { name: 'floor: node:http script', command: `${node} ${join(ROOT, 'bench', 'floor-http.mjs')}` },
    { name: 'floor: undici script', command: `${node} ${join(ROOT, 'bench', 'floor-undici.mjs')}` },
  ];
  const sea = join(ROOT, 'dist', 'rfs-linux-x64');
  if (existsSync(sea)) {
    commands.push({ name: 'rfs-linux-x64 --version', command: `${sea} --version` }, { name: 'rfs-linux-x64 --help', command: `${sea} --help` });
  }
  let results;
  try {
    results = hyperfine(commands, { runs: 40, env });
  } finally {
    await sb.stop();
  }
  const base = results.find((r) => r.name === 'node -e 0').median;
  const curl = results.find((r) => r.name.startsWith('curl')).median;
  const targets = { 'rfs --version': 1.15, 'rfs --help': 1.15, 'rfs recordings list -o json': 1.6, 'rfs-linux-x64 --version': 1.5, 'rfs-linux-x64 --help': 1.5 };
  const rows = results.map((r) => {
    const target = targets[r.name];
    const ratio = r.median / base;
    return [r.name, ms(r.median), `${fmt(ratio, 2)}×`, r.name.startsWith('rfs recordings') || r.name.startsWith('floor') ? `${fmt(r.median / curl, 2)}×` : '', target ? `≤ ${target}× ${ratio <= target ? 'met' : 'MISSED'}` : ''];
  });
  return { header: ['command', 'median', 'vs node -e 0', 'vs curl', 'target'], rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { header, rows } = await startup();
  console.log([header, ...rows].map((r) => r.join('  ')).join('\n'));
}
