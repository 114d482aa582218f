// One page of `recordings list -o json` from this checkout's build against another checkout's
// (built, with its own node_modules), in the same interleaved rounds as the start-up benchmark,
// with `node -e 0` in every round. Answers "did this change slow the list down?" where separate
// runs cannot: the machine's speed drifts more between runs than a change moves the list.
//   node bench/compare-builds.mjs <other checkout> [rounds]
// e.g. `git worktree add /tmp/old <commit> && (cd /tmp/old && npm ci)`, then the line above.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt, interleaved, ms, RFS, sandbox, table } from './lib.mjs';

const [otherDir, roundsText = '40'] = process.argv.slice(2);
const other = otherDir ? join(resolve(otherDir), 'bin', 'rfs.js') : undefined;
const rounds = Number(roundsText);
if (!other || !existsSync(other) || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('usage: node bench/compare-builds.mjs <other checkout, built> [rounds, default 40]\n');
  process.exit(2);
}

const sb = await sandbox(['--rate-limit', '0']);
const config = mkdtempSync(join(tmpdir(), 'rfs-bench-compare-'));
try {
  const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: config, NO_COLOR: '1' };
  const list = ['recordings', 'list', '-o', 'json'];
  const results = interleaved(
    [
      { name: 'node -e 0', file: process.execPath, args: ['-e', '0'] },
      { name: `list, ${otherDir}`, file: process.execPath, args: [other, ...list] },
      { name: 'list, this checkout', file: process.execPath, args: [RFS, ...list] },
    ],
    { rounds, env },
  );
  const [node, then] = results;
  process.stdout.write(
    `${rounds} interleaved rounds; a ratio is the median over rounds of two times from the same round.\n\n${table(
      ['command', 'median', 'vs node -e 0', `vs ${otherDir}`],
      results.map((r) => [r.name, ms(r.median), `${fmt(r.ratio(node.name), 2)}×`, `${fmt(r.ratio(then.name), 3)}×`]),
    )}\n`,
  );
} finally {
  await sb.stop();
  rmSync(config, { recursive: true, force: true });
}
