// Start-up, on every Node users run: rfs --version, --help and one page of `recordings list -o
// json` from a local sandbox, against `node -e 0` and against the floor (bench/floor-http.cjs,
// the same page fetched and printed by a bare CommonJS script), each Node's commands run
// interleaved: absolute times drift on a shared machine, a ratio of runs made moments apart holds.
// Targets (issue 31): one page ≤ 1.25× the floor, --version and --help ≤ 1.1× `node -e 0`, on
// each of Node 20, 22, 24 and 26; the single executable's page ≤ 1.25× the floor of its own Node.
//
// Nothing flatters the figures: every timed process runs without NODE_EXTRA_CA_CERTS (with it,
// Node 20 reads the whole CA bundle at every start, ~80 ms here, inflating `node -e 0` and every
// ratio to it) and without NODE_OPTIONS. The Nodes are Node's own binaries (bench/nodes.mjs),
// the newest of each line. The code cache (bin/rfs.js) starts empty in a folder of this run;
// the warm-up rounds make it, as a user's first run does.
//
// `before`: another checkout, built, whose rows run in the same rounds, so that a change is
// measured before and after in one run:
//   node bench/run.mjs start-up --before <checkout>
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchNodes } from './nodes.mjs';
import { fmt, interleaved, ms, RFS, ROOT, sandbox } from './lib.mjs';

/** Rounds per Node: each runs every command of that Node once. */
const ROUNDS = Number(process.env.RFS_BENCH_ROUNDS ?? 60);

const TARGETS = { version: 1.1, help: 1.1, page: 1.25 };

/** The environment of every timed process: this one's, without what would flatter or skew it. */
export function cleanEnv(extra) {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  delete env.NODE_COMPILE_CACHE;
  return env;
}

/** The Node version a single executable carries (`--version -v` says). */
function executableNode(file, env) {
  const out = spawnSync(file, ['--version', '-v'], { encoding: 'utf8', env });
  return /^node:\s+v(\S+)$/m.exec(out.stdout ?? '')?.[1];
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export async function startup({ before } = {}) {
  const nodes = benchNodes();
  const work = mkdtempSync(join(tmpdir(), 'rfs-bench-startup-'));
  const sb = await sandbox(['--rate-limit', '0']);
  const env = cleanEnv({
    RFS_BASE_URL: sb.baseUrl,
    RFS_API_KEY: sb.apiKeys.admin,
    RFS_CONFIG_DIR: '/nonexistent-rfs-bench',
    XDG_CACHE_HOME: join(work, 'cache'),
  });
  const floor = join(ROOT, 'bench', 'floor-http.cjs');
  const page = ['recordings', 'list', '-o', 'json'];
  const sea = join(ROOT, 'dist', 'rfs-linux-x64');
  const seaNode = existsSync(sea) ? executableNode(sea, env) : undefined;
  const old = before === undefined ? undefined : resolve(before);
  const rows = [];
  try {
    for (const { version, node } of nodes) {
      const cmd = (name, file, ...args) => ({ name, file, args });
      const commands = [
        cmd('node -e 0', node, '-e', '0'),
        cmd('floor', node, floor),
        cmd('rfs --version', node, RFS, '--version'),
        cmd('rfs --help', node, RFS, '--help'),
        cmd('rfs page', node, RFS, ...page),
      ];
      if (seaNode === version) {
        commands.push(cmd('rfs-linux-x64 --version', sea, '--version'), cmd('rfs-linux-x64 --help', sea, '--help'));
        commands.push(cmd('rfs-linux-x64 page', sea, ...page));
      }
      if (old) commands.push(cmd('before: rfs page', node, join(old, 'bin', 'rfs.js'), ...page));
      process.stderr.write(`   Node ${version}: ${commands.length} commands, ${ROUNDS} rounds (load ${load()})\n`);
      const startLoad = load();
      const results = interleaved(commands, { rounds: ROUNDS, env });
      const during = `${startLoad} → ${load()}`;
      for (const r of results) {
        if (r.name === 'node -e 0') {
          rows.push([version, r.name, ms(r.median), '1', '', '', during]);
          continue;
        }
        const kind = r.name.endsWith('--version')
          ? 'version'
          : r.name.endsWith('--help')
            ? 'help'
            : r.name === 'floor'
              ? undefined
              : 'page';
        const vsNode = r.ratio('node -e 0');
        const vsFloor = r.name === 'floor' || kind === 'page' ? r.ratio('floor') : undefined;
        const target = TARGETS[kind];
        const judged = kind === 'page' ? vsFloor : vsNode;
        const verdict =
          target === undefined || r.name.startsWith('before')
            ? ''
            : `≤ ${target}× ${kind === 'page' ? 'floor' : 'node'}: ${judged <= target ? 'met' : 'MISSED'}`;
        rows.push([
          version,
          r.name,
          ms(r.median),
          `${fmt(vsNode, 2)}×`,
          vsFloor === undefined ? '' : `${fmt(vsFloor, 2)}×`,
          verdict,
          during,
        ]);
      }
    }
  } finally {
    await sb.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const header = ['Node', 'command', 'median', 'vs node -e 0', 'vs floor', 'target', 'load average (1, 5, 15 min) before → after'];
  return { header, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--before');
  const { header, rows } = await startup({ before: at === -1 ? undefined : process.argv[at + 1] });
  console.log([header, ...rows].map((r) => r.join('  ')).join('\n'));
}
