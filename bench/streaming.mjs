// Streaming: `rfs recordings list --all --limit 100 -o ndjson` over a sandbox of 100,000
// recordings (rate limit off) against a minimal node:http loop (the client rfs uses) that fetches the same pages and
// writes the same lines; then the same rfs command over 10,000 recordings, for flat memory.
// Targets: throughput ≥ 0.8× the loop's; peak RSS < 100 MB and ≤ 1.2× the 10,000 run's.
import { join } from 'node:path';
import { fmt, measure, median, RFS, ROOT, sandbox } from './lib.mjs';

/** Runs of each program per size. */
const ROUNDS = 5;

async function run(recordings) {
  const sb = await sandbox(['--rate-limit', '0', '--recordings', String(recordings)]);
  const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: '/nonexistent-rfs-bench' };
  try {
    const rfsArgs = [RFS, 'recordings', 'list', '--all', '--limit', '100', '-o', 'ndjson', '--rate', '0'];
    // Alternate the two, ROUNDS times each; their speed ratio is taken round by round (runs made
    // moments apart see the same load on this shared machine).
    const rfs = [];
    const loop = [];
    // The benchmark reads rfs through a socket pair (what Node's spawn makes); a shell pipe
    // (`rfs … | jq`) has a 64 KiB buffer and fills up sooner, so memory is measured there too.
    // GNU time reports the largest process that sh waited for: node.
    const piped = [];
    for (let i = 0; i < ROUNDS; i++) {
      rfs.push(await measure(process.execPath, rfsArgs, { env }));
      loop.push(await measure(process.execPath, [join(ROOT, 'bench', 'baseline-loop.mjs')], { env }));
      piped.push(await measure('/bin/sh', ['-c', `${[process.execPath, ...rfsArgs].join(' ')} | cat`], { env }));
    }
    for (const r of [...rfs, ...loop, ...piped]) if (r.code !== 0) throw new Error(`a streaming run failed: ${r.stderr}`);
    const best = (runs) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    return {
      recordings,
      rfs: best(rfs),
      loop: best(loop),
      piped: best(piped),
      // The loop's time over rfs's, in the same round: rfs's throughput relative to the loop's.
      throughput: median(rfs.map((r, i) => r.lines / r.seconds / (loop[i].lines / loop[i].seconds))),
      rfsPeak: Math.max(...rfs.map((r) => r.rssMB)),
      pipedPeak: Math.max(...piped.map((r) => r.rssMB)),
    };
  } finally {
    await sb.stop();
  }
}

export async function streaming() {
  const big = await run(100_000);
  const small = await run(10_000);
  if (big.rfs.lines !== big.loop.lines) throw new Error(`rfs printed ${big.rfs.lines} items, the loop ${big.loop.lines}`);
  const rate = (r) => r.lines / r.seconds;
  const throughput = big.throughput;
  const peak = Math.max(big.rfsPeak, big.pipedPeak);
  const flat = peak / Math.max(small.rfsPeak, small.pipedPeak);
  const rows = [
    [
      'rfs, 100,000 recordings',
      `${big.rfs.lines} items`,
      `${fmt(big.rfs.seconds, 2)} s`,
      `${fmt(rate(big.rfs), 0)}/s`,
      `${fmt(big.rfsPeak)} MB`,
    ],
    [
      'rfs, 100,000 recordings, `| cat`',
      `${big.piped.lines} items`,
      `${fmt(big.piped.seconds, 2)} s`,
      `${fmt(rate(big.piped), 0)}/s`,
      `${fmt(big.pipedPeak)} MB`,
    ],
    [
      'node:http loop, 100,000 recordings',
      `${big.loop.lines} items`,
      `${fmt(big.loop.seconds, 2)} s`,
      `${fmt(rate(big.loop), 0)}/s`,
      `${fmt(big.loop.rssMB)} MB`,
    ],
    [
      'rfs, 10,000 recordings',
      `${small.rfs.lines} items`,
      `${fmt(small.rfs.seconds, 2)} s`,
      `${fmt(rate(small.rfs), 0)}/s`,
      `${fmt(small.rfsPeak)} MB`,
    ],
    [
      'rfs, 10,000 recordings, `| cat`',
      `${small.piped.lines} items`,
      `${fmt(small.piped.seconds, 2)} s`,
      `${fmt(rate(small.piped), 0)}/s`,
      `${fmt(small.pipedPeak)} MB`,
    ],
  ];
  const verdicts = [
    `throughput ${fmt(throughput, 2)}× the loop's, the median of the ${ROUNDS} rounds' ratios (target ≥ 0.8: ${throughput >= 0.8 ? 'met' : 'MISSED'})`,
    `peak RSS ${fmt(peak)} MB, the larger of the two ways of reading (target < 100 MB: ${peak < 100 ? 'met' : 'MISSED'}), ${fmt(flat, 2)}× the 10,000 runs' (target ≤ 1.2: ${flat <= 1.2 ? 'met' : 'MISSED'})`,
  ];
  return { header: ['run', 'printed', `time (best of ${ROUNDS})`, 'items/s', 'peak RSS (largest)'], rows, verdicts };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await streaming();
  console.log([r.header, ...r.rows].map((x) => x.join('  ')).join('\n'));
  console.log(r.verdicts.join('\n'));
}
