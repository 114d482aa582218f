// Pacing: 200 requests through rfs (`recordings list --all --limit 1` over 200+ recordings)
// at --rate 600 against a sandbox that allows 20 requests per 2 s. Targets: no 429 answer,
// and a total time within 1.1× of the ideal 200/600 min = 20 s.
import { fmt, measure, RFS, sandbox } from './lib.mjs';

export async function pacing() {
  const sb = await sandbox(['--rate-limit', '20', '--rate-window', '2', '--recordings', '400']);
  const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: '/nonexistent-rfs-bench' };
  let r;
  try {
    r = await measure(
      process.execPath,
      [RFS, 'recordings', 'list', '--all', '--limit', '1', '--max-items', '200', '--rate', '600', '-v', '-o', 'ndjson'],
      { env },
    );
  } finally {
    await sb.stop();
  }
  if (r.code !== 0) throw new Error(`the pacing run failed: ${r.stderr}`);
  const attempts = r.stderr.split('\n').filter((l) => / attempt \d+\/\d+/.test(l));
  const tooMany = attempts.filter((l) => / 429 /.test(l)).length;
  const ideal = (200 / 600) * 60;
  const ratio = r.seconds / ideal;
  return {
    header: ['requests', 'items', '429 answers', 'time', 'ideal', 'ratio'],
    rows: [[String(attempts.length), String(r.lines), String(tooMany), `${fmt(r.seconds, 2)} s`, `${ideal} s`, `${fmt(ratio, 3)}×`]],
    verdicts: [
      `429 answers: ${tooMany} (target 0: ${tooMany === 0 ? 'met' : 'MISSED'}); time ${fmt(ratio, 3)}× the ideal (target ≤ 1.1: ${ratio <= 1.1 ? 'met' : 'MISSED'})`,
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await pacing();
  console.log([r.header, ...r.rows].map((x) => x.join('  ')).join('\n'));
  console.log(r.verdicts.join('\n'));
}
