// rfs sync --concurrency (issue 14): 120 COMPLETED, unsynced recordings, a command that takes
// 2 s, the sandbox at its default limit (120 requests a minute), rfs at its default --rate.
// --concurrency 1 against --concurrency 4 against the ideal: every request of the pass (the
// list pages, a fetch and a filing per recording) sent at the API's ceiling. Target:
// --concurrency 4 within 1.15× the ideal, with no 429 answer (counted from the sandbox's
// request log, GET /_sandbox/requests). Each run gets a fresh sandbox, so both start alike.
//
// Takes about 7 minutes: `npm run bench:sync` (not part of `npm run bench`); it writes its
// section of RESULTS.md and leaves the others as they are.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, measure, RFS, sandbox, writeSection } from './lib.mjs';

const RECORDINGS = 120;
const COMMAND_SECONDS = 2;
const API_PER_MINUTE = 120;
const COMMAND = `cat > /dev/null; sleep ${COMMAND_SECONDS}; echo "CASE-$RFS_RECORDING_ID"`;

async function control(sb, method, path, body) {
  const res = await fetch(`${sb.baseUrl}/_sandbox/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} /_sandbox/${path}: ${res.status}`);
  return res.status === 204 ? undefined : res.json();
}

async function run(concurrency) {
  // No generated recordings: exactly RECORDINGS made through the control API (not rate-limited).
  const sb = await sandbox(['--recordings', '0']);
  const dir = mkdtempSync(join(tmpdir(), 'rfs-bench-sync-'));
  try {
    for (let i = 0; i < RECORDINGS; i++) await control(sb, 'POST', 'recordings', { status: 'COMPLETED', title: `bench ${i}` });
    await control(sb, 'DELETE', 'requests');
    const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: join(dir, 'config') };
    const args = [RFS, 'sync', '--exec', COMMAND, '--provider', 'bench', '--journal', join(dir, 'journal.jsonl')];
    process.stderr.write(`sync --concurrency ${concurrency}: ${RECORDINGS} recordings…\n`);
    const r = await measure(process.execPath, [...args, '--concurrency', String(concurrency), '-o', 'ndjson'], { env });
    if (r.code !== 0) throw new Error(`sync --concurrency ${concurrency} exited ${r.code}: ${r.stderr}`);
    const log = (await control(sb, 'GET', 'requests')).data;
    const answered = log.filter((e) => e.status !== 429).length;
    const tooMany = log.filter((e) => e.status === 429).length;
    return { concurrency, seconds: r.seconds, filed: r.lines, requests: answered, tooMany };
  } finally {
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function syncConcurrency() {
  const four = await run(4);
  const one = await run(1);
  // Every request of the pass, one after the other at the API's ceiling.
  const ideal = (four.requests / API_PER_MINUTE) * 60;
  const ratio = four.seconds / ideal;
  const row = (r) => [
    `--concurrency ${r.concurrency}`,
    String(r.filed),
    String(r.requests),
    String(r.tooMany),
    `${fmt(r.seconds, 1)} s`,
    `${fmt(r.seconds / ideal, 2)}×`,
  ];
  return {
    header: ['run', 'filed', 'requests', '429 answers', 'time', 'vs ideal'],
    rows: [
      row(one),
      row(four),
      ['ideal: every request at 120/min', String(RECORDINGS), String(four.requests), '0', `${fmt(ideal, 1)} s`, '1.00×'],
    ],
    verdicts: [
      `--concurrency 4: ${fmt(ratio, 2)}× the ideal (target ≤ 1.15: ${ratio <= 1.15 ? 'met' : 'MISSED'}), ${four.tooMany} answers 429 (target 0: ${four.tooMany === 0 && one.tooMany === 0 ? 'met' : 'MISSED'}); ${fmt(one.seconds / four.seconds, 2)}× faster than --concurrency 1`,
    ],
  };
}

/**
 * `--max-items 2` over a 100,000-recording backlog: one list request (the test counts them),
 * and the whole run, from start-up to exit, under 2 s. Three runs, each on a journal of its own.
 */
export async function syncMaxItems() {
  const sb = await sandbox(['--recordings', '100000']);
  const dir = mkdtempSync(join(tmpdir(), 'rfs-bench-sync-'));
  const rows = [];
  try {
    for (let n = 1; n <= 3; n++) {
      await control(sb, 'DELETE', 'requests');
      const env = { RFS_BASE_URL: sb.baseUrl, RFS_API_KEY: sb.apiKeys.admin, RFS_CONFIG_DIR: join(dir, 'config') };
      const args = [RFS, 'sync', '--exec', 'cat > /dev/null; echo "CASE-$RFS_RECORDING_ID"', '--provider', 'bench'];
      const r = await measure(
        process.execPath,
        [...args, '--journal', join(dir, `journal-${n}.jsonl`), '--max-items', '2', '-o', 'ndjson'],
        { env },
      );
      if (r.code !== 0) throw new Error(`sync --max-items 2 exited ${r.code}: ${r.stderr}`);
      // The machine's speed drifts (it is shared): node's own start-up, moments after, says how fast it is now.
      const node = await measure(process.execPath, ['-e', '0'], { countLines: false });
      const log = (await control(sb, 'GET', 'requests')).data;
      const lists = log.filter((e) => e.method === 'GET' && /\/recordings$/.test(e.path)).length;
      rows.push({ n, seconds: r.seconds, node: node.seconds, filed: r.lines, lists, requests: log.length });
    }
  } finally {
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const worst = Math.max(...rows.map((r) => r.seconds));
  const lists = Math.max(...rows.map((r) => r.lists));
  return {
    header: ['run', 'filed', 'list requests', 'requests', 'time', '`node -e 0` just after'],
    rows: rows.map((r) => [
      String(r.n),
      String(r.filed),
      String(r.lists),
      String(r.requests),
      `${fmt(r.seconds, 2)} s`,
      `${fmt(r.node, 2)} s`,
    ]),
    verdicts: [
      `slowest ${fmt(worst, 2)} s (target < 2 s: ${worst < 2 ? 'met' : 'MISSED'}); list requests per run at most ${lists} (target 1: ${lists === 1 ? 'met' : 'MISSED'})`,
      // What the machine was like: `node -e 0` takes about 0.12 s here when it is idle (Start-up).
      `\`node -e 0\` took ${fmt(Math.min(...rows.map((r) => r.node)), 2)} to ${fmt(Math.max(...rows.map((r) => r.node)), 2)} s beside these runs (about 0.12 s on the idle machine: see Start-up); load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`,
    ],
  };
}

const HOW = `${RECORDINGS} COMPLETED, unsynced recordings; \`rfs sync --exec '${COMMAND}'\`; \`rfs sandbox\` at its default limit (120 requests per minute); rfs at its default \`--rate\` (120, burst 10). The ideal sends every request of the pass (list pages, a fetch and a filing per recording) at the API's ceiling. \`npm run bench:sync\` (about 7 minutes; not part of \`npm run bench\`).`;

const HOW_MAX =
  "`rfs sync --max-items 2` against `rfs sandbox --recordings 100000` (default limit), rfs at its default `--rate`; the whole process, start-up to exit; list requests from the sandbox's request log. Part of `npm run bench:sync`.";

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv[2];
  if (only === undefined || only === 'max-items')
    process.stdout.write(`${writeSection('sync --max-items', HOW_MAX, await syncMaxItems())}\n`);
  if (only === undefined || only === 'concurrency')
    process.stdout.write(`${writeSection('sync --concurrency', HOW, await syncConcurrency())}\n`);
}
