// The benchmark case of sandbox.md's users: a sandbox seeded with 100,000 recordings must start
// in seconds, page through every unsynced one (each once) quickly, and serve a page from a deep
// cursor about as fast as from the start. These were timed assertions in test/sandbox/scale.test.ts,
// where a loaded CI machine made them flaky and they cost the suite ~8 s of CPU; the suite keeps
// the correctness of paging (test/sandbox/cursor.test.ts), the timings live here.
import { startSandbox } from '../dist/sandbox/index.js';
import { fmt } from './lib.mjs';

const RECORDINGS = 100_000;

async function page(sb, query) {
  const res = await fetch(`${sb.baseUrl}/api/v1/recordings?${query}`, { headers: { authorization: `Bearer ${sb.apiKeys.admin}` } });
  if (res.status !== 200) throw new Error(`GET /recordings?${query} answered ${res.status}`);
  return res.json();
}

/** Forty pages of 10 from `cursor` (null: the start), in ms. */
async function fortyPages(sb, cursor) {
  const t = performance.now();
  for (let i = 0; i < 40; i++) await page(sb, `limit=10${cursor ? `&cursor=${cursor}` : ''}`);
  return performance.now() - t;
}

export async function sandboxScale() {
  const t0 = performance.now();
  // In this process, as an integrator's suite starts it (`rfs/sandbox`): the start is the seeding.
  const sb = await startSandbox({ port: 0, recordings: RECORDINGS, rateLimit: 0, seed: 'scale' });
  const startedIn = performance.now() - t0;
  try {
    const seen = new Set();
    let cursor = null;
    let pages = 0;
    let deepCursor = null;
    const t1 = performance.now();
    do {
      const body = await page(sb, `limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      for (const item of body.data) seen.add(item.id);
      cursor = body.meta.nextCursor;
      pages++;
      if (pages === 600) deepCursor = cursor;
    } while (cursor);
    const walked = performance.now() - t1;
    if (pages !== Math.ceil(seen.size / 100)) throw new Error(`${pages} pages for ${seen.size} recordings: some came twice`);
    const fromStart = await fortyPages(sb, null);
    const fromDeep = await fortyPages(sb, deepCursor);
    const each = seen.size >= 60_000 && pages === Math.ceil(seen.size / 100);
    return {
      header: ['measure', 'figure', 'target'],
      rows: [
        ['start with 100,000 recordings', `${fmt(startedIn / 1000, 2)} s`, '< 5 s'],
        [`every unsynced one, 100 a page (${seen.size} in ${pages} pages)`, `${fmt(walked / 1000, 2)} s`, '< 25 s, each once'],
        ['40 pages of 10 from the start', `${fmt(fromStart, 0)} ms`, ''],
        ['40 pages of 10 from page 600', `${fmt(fromDeep, 0)} ms`, '< 3× from the start + 200 ms'],
      ],
      verdicts: [
        `start ${fmt(startedIn / 1000, 2)} s (target < 5 s: ${startedIn < 5000 ? 'met' : 'MISSED'})`,
        `walk ${fmt(walked / 1000, 2)} s, each recording once: ${each ? 'yes' : 'NO'} (target < 25 s: ${walked < 25_000 ? 'met' : 'MISSED'})`,
        `deep cursor ${fmt(fromDeep / fromStart, 2)}× the start (target < 3× + 200 ms: ${fromDeep < fromStart * 3 + 200 ? 'met' : 'MISSED'})`,
      ],
    };
  } finally {
    await sb.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await sandboxScale();
  console.log([r.header, ...r.rows].map((x) => x.join('  ')).join('\n'));
  console.log(r.verdicts.join('\n'));
}
