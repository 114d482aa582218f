// npm run bench: every benchmark in one run, printed and written to bench/RESULTS.md.
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pacing } from './pacing.mjs';
import { sandboxDurability } from './sandbox-durability.mjs';
import { sandboxScale } from './sandbox-scale.mjs';
import { sandboxThroughput } from './sandbox-throughput.mjs';
import { startup } from './startup.mjs';
import { streaming } from './streaming.mjs';
import { readResults, ROOT, sectionText, writeSection } from './lib.mjs';

import { spawnSync } from 'node:child_process';

const write = process.argv.includes('--write');
// --before <checkout>: that build's start-up rows in the same rounds (bench/startup.mjs).
const beforeAt = process.argv.indexOf('--before');
const before = beforeAt === -1 ? undefined : process.argv[beforeAt + 1];
const only = process.argv.slice(2).filter((arg, i, all) => arg !== '--write' && arg !== '--before' && all[i - 1] !== '--before');
const sections = [
  [
    'Start-up',
    startup,
    "On each of Node 20, 22, 24 and 26 (Node's own binaries, the newest of each line: `bench/nodes.mjs`), " +
      `${process.env.RFS_BENCH_ROUNDS ?? 60} rounds (after 3 warm-ups, which also make rfs's code cache), each running every command of that Node once, the order rotated every round; output discarded. ` +
      'Every timed process runs with NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset. "floor" is `bench/floor-http.cjs`: the same page fetched with node:http and its items printed, by a bare CommonJS script. ' +
      '"median" is over the runs; a ratio is the median over the rounds of the two commands\' times in the same round (bench/lib.mjs, `interleaved`). The load average is read before and after each Node\'s rounds.',
  ],
  ['Streaming', streaming, '`rfs recordings list --all --limit 100 -o ndjson` against `bench/baseline-loop.mjs`; peak RSS from GNU time.'],
  ['Pacing', pacing, '200 requests at `--rate 600` against `rfs sandbox --rate-limit 20 --rate-window 2`.'],
  ['Sandbox throughput', sandboxThroughput, 'wrk, 2 threads, 16 connections, 10 s; rate limit off; 1,000 recordings.'],
  [
    'Sandbox at 100,000 recordings',
    sandboxScale,
    "`bench/sandbox-scale.mjs`: `startSandbox` (the `rfs/sandbox` entry) in the benchmark's process, seeded with 100,000 recordings; every unsynced one walked with `fetch`, 100 a page; then 40 pages of 10 from the start and from the cursor of page 600.",
  ],
  [
    'Durable --data',
    sandboxDurability,
    '`bench/sandbox-durability.mjs`: POST filings with wrk (2 threads, 16 connections, 10 s, every request a new filing), rate limit off, with `--data` and without, from the same state: every COMPLETED recording filed once beforehand. "rewrite whole" is one atomic rewrite of that state (serialise, write, fsync, rename, fsync the folder), the median of 3: what each flush would cost if `--data` were saved whole instead of journaled.',
  ],
];

// The tools come from Debian's packages, not from npm: say so plainly when one is missing.
const TOOLS = { Streaming: ['/usr/bin/time'], 'Sandbox throughput': ['wrk'], 'Durable --data': ['wrk'] };
const chosen = sections.filter(([title]) => only.length === 0 || only.some((o) => title.toLowerCase().includes(o)));
const needed = [...new Set(chosen.flatMap(([title]) => TOOLS[title] ?? []))];
const missing = needed.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missing.length > 0) {
  process.stderr.write(`these benchmarks need ${missing.join(', ')}: apt-get install -y wrk curl time\n`);
  process.exit(2);
}

const parts = [
  '# Benchmark results',
  '',
  `Measured with \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}). ` +
    'Each benchmark runs its baseline side by side in the same run: absolute times drift on a shared machine, ratios hold.',
];
for (const [title, fn, how] of sections) {
  if (only.length > 0 && !only.some((o) => title.toLowerCase().includes(o))) continue;
  process.stderr.write(`== ${title}\n`);
  const r = await fn({ before });
  const text = sectionText(title, how, r);
  process.stdout.write(`\n${text}\n`);
  parts.push('', text);
  // `--write` with named sections: those sections of RESULTS.md are replaced, the rest kept.
  if (only.length > 0 && write) writeSection(title, how, r);
}
// Sections measured on their own (bench:sync, verify-signature memory) are kept as they were.
const mine = new Set(sections.map(([title]) => title));
for (const kept of readResults().sections.filter((s) => !mine.has(s.title))) parts.push('', kept.body);
if (only.length === 0) writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), `${parts.join('\n')}\n`);
