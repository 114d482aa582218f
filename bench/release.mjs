// The release (issue 25): how long `npm run release` and `npm run release:check` take on this
// machine, and how large each artifact is, compressed as shipped. CI runs both after the tests,
// within its 90 minutes on 2 cores: these are the figures to watch.
//
// Takes about 10 minutes: `npm run bench:release` (not part of `npm run bench`); it writes its
// section of RESULTS.md and leaves the others as they are.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, writeSection } from './lib.mjs';

/** Runs one npm script under GNU time; its output, wall time and CPU time (user + system, children included). */
function timed(script) {
  process.stderr.write(`npm run ${script}…\n`);
  const load = loadavg()[0];
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', 'npm', 'run', '--silent', script], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const match = /^TIME (\S+) (\S+) (\S+)$/m.exec(r.stderr);
  if (r.status !== 0 || !match) throw new Error(`npm run ${script} failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return { stdout: r.stdout, wall: Number(match[1]), cpu: Number(match[2]) + Number(match[3]), load };
}

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const release = timed('release');
const check = timed('release:check');
const dir = join(ROOT, 'release', version);
const files = readFileSync(join(dir, 'SHA256SUMS'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => line.split(/ [ *]/)[1] ?? '');
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
// The per-step times that scripts/release.mjs prints ("  <step>   <seconds> s").
const steps = [
  ...release.stdout.matchAll(/^ {2}(npm package|SBOM|Node \S+ binaries|executable \S+|archives|\.deb packages) +([\d.]+) s$/gm),
];

const rows = [
  ['`npm run release`', `${release.wall.toFixed(0)} s`, `${release.cpu.toFixed(0)} s`, `${release.load.toFixed(1)}`],
  ...steps.map((m) => [`  ${m[1]}`, `${Number(m[2]).toFixed(0)} s`, '', '']),
  ['`npm run release:check`', `${check.wall.toFixed(0)} s`, `${check.cpu.toFixed(0)} s`, `${check.load.toFixed(1)}`],
];
const artifacts = files.filter((f) => /\.(tar\.gz|zip|deb|tgz)$/.test(f)).map((f) => `${f} ${mib(statSync(join(dir, f)).size)}`);
const total = release.wall + check.wall;
const text = writeSection(
  'Release',
  `\`bench/release.mjs\`: \`npm run release\` then \`npm run release:check\` for ${version}, ${cpus().length} cores, under GNU time (CPU: user + system, children included; load: the 1-minute load average at the start). The Node binaries come from npm's cache after the first run; on a fresh machine add their download (about 230 MB). Sizes as shipped (compressed).`,
  {
    header: ['step', 'wall', 'CPU', 'load'],
    rows,
    verdicts: [
      `sizes: ${artifacts.join(', ')}`,
      `release + check ${(total / 60).toFixed(1)} min of CI's 90 (target: well under; met: ${total < 20 * 60 ? 'yes, < 20 min' : 'NO'})`,
    ],
  },
);
process.stdout.write(`${text}\n`);
