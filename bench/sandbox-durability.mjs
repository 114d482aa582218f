// Durable --data (issue 15, item 4): filing latency (p50, p99) and throughput with `--data`,
// beside the same sandbox without it, at 2,000 and 50,000 recordings. Both sides start from
// the same state: every COMPLETED recording already filed once (at 50,000: 35,000 changed
// recordings, a 24 MB state), so a save that rewrote the whole state would show. Then wrk
// files for 10 s over 16 connections, every request a new filing. Target: p50 with --data
// within 3x of without. Also timed: rewriting that state whole once (what a save per flush
// would cost), against which the journal's one appended line per flush was chosen.
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, median, ROOT, sandbox } from './lib.mjs';

const SIZES = [2_000, 50_000];
const SECONDS = 10;

function wrk(args, env) {
  const out = execFileSync('wrk', ['-t2', '-c16', `-d${SECONDS}s`, '--latency', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = /\s50%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?';
  const p99 = /\s99%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?';
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? '0');
  return { rps, p50, p99, errors };
}

/** wrk's "2.38ms", "812.00us", "1.20s" in milliseconds. */
function millis(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return Number.NaN;
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2]];
}

async function api(sb, path, body) {
  const res = await fetch(`${sb.baseUrl}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${sb.apiKeys.admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

async function completedIds(sb) {
  const ids = [];
  let cursor = null;
  do {
    const page = await api(sb, `/recordings?syncState=all&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    ids.push(...page.data.map((r) => r.id));
    cursor = page.meta.nextCursor;
  } while (cursor);
  return ids;
}

/** Files every id once, 16 at a time; the state then holds them all as changed recordings. */
async function fileAll(sb, ids) {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      await api(sb, `/recordings/${id}/filings`, { provider: 'bench', externalId: `PRE-${id}`, metadata: { matter: 'M-1' } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** The state written whole once, as the atomic write does (temporary file, fsync, rename, folder fsync). */
function rewriteOnce(dir, text) {
  const started = performance.now();
  const serialised = JSON.stringify(JSON.parse(text));
  const temp = join(dir, '.rewrite.tmp');
  const fd = openSync(temp, 'w');
  writeSync(fd, serialised);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, join(dir, 'rewrite.json'));
  const folder = openSync(dir, 'r');
  fsyncSync(folder);
  closeSync(folder);
  return performance.now() - started;
}

/** The floor under any durable answer on this disk: one line appended and fdatasynced, p50 of 50. */
async function fdatasyncFloor(dir) {
  const { open } = await import('node:fs/promises');
  const handle = await open(join(dir, 'floor.log'), 'a');
  const times = [];
  try {
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await handle.appendFile(`${'x'.repeat(600)}\n`);
      await handle.datasync();
      times.push(performance.now() - started);
    }
  } finally {
    await handle.close();
  }
  return median(times);
}

const size = (file) => {
  try {
    return `${(statSync(file).size / 1024 / 1024).toFixed(1)} MB`;
  } catch {
    return '—';
  }
};

export async function sandboxDurability() {
  const dir = mkdtempSync(join(tmpdir(), 'rfs-bench-durable-'));
  const rows = [];
  const verdicts = [];
  try {
    for (const recordings of SIZES) {
      // One state for both sides: every COMPLETED recording filed once.
      const seedSb = await sandbox(['--rate-limit', '0', '--recordings', String(recordings)]);
      let ids;
      let state;
      try {
        ids = await completedIds(seedSb);
        process.stderr.write(`   ${recordings} recordings: filing ${ids.length} to start from\n`);
        await fileAll(seedSb, ids);
        state = await (await fetch(`${seedSb.baseUrl}/_sandbox/state?includeSeed=1`)).text();
      } finally {
        await seedSb.stop();
      }
      const fixtures = join(dir, `start-${recordings}.json`);
      writeFileSync(fixtures, state);
      const rewrites = [0, 1, 2].map(() => rewriteOnce(dir, state));
      // The same spread of recordings for both sides; RFS_BENCH_IDS must stay under the 128 KB an environment string may hold.
      const step = Math.max(1, Math.ceil(ids.length / 3000));
      const sample = ids.filter((_, i) => i % step === 0).join(',');

      const results = {};
      for (const side of ['memory', 'data']) {
        const dataFile = join(dir, `data-${recordings}.json`);
        rmSync(dataFile, { force: true });
        const starting = performance.now();
        const sb = await sandbox([
          '--rate-limit',
          '0',
          '--recordings',
          String(recordings),
          '--fixtures',
          fixtures,
          ...(side === 'data' ? ['--data', dataFile] : []),
        ]);
        try {
          // Answered once the first write of the data file (the whole state) is done.
          await fetch(`${sb.baseUrl}/_sandbox/health`);
          const ready = performance.now() - starting;
          const r = wrk(['-s', join(ROOT, 'bench', 'filings.lua'), sb.baseUrl], { RFS_BENCH_IDS: sample, RFS_BENCH_KEY: sb.apiKeys.admin });
          results[side] = r;
          const files = side === 'data' ? `data file ${size(dataFile)}, journal ${size(`${dataFile}.journal`)}` : '';
          rows.push([
            `${recordings.toLocaleString('en')}${side === 'data' ? ', --data' : ''}`,
            `${ids.length.toLocaleString('en')} (${(state.length / 1024 / 1024).toFixed(1)} MB)`,
            fmt(r.rps, 0),
            r.p50,
            r.p99,
            String(r.errors),
            `${fmt(ready / 1000, 2)} s`,
            side === 'data' ? files : `rewrite whole: ${fmt(median(rewrites), 0)} ms`,
          ]);
        } finally {
          await sb.stop();
        }
      }
      const ratio = millis(results.data.p50) / millis(results.memory.p50);
      const floor = await fdatasyncFloor(dir);
      verdicts.push(
        `${recordings.toLocaleString('en')} recordings: p50 with --data ${fmt(ratio, 2)}× without (target ≤ 3×: ${ratio <= 3 ? 'met' : 'MISSED'}); throughput ${fmt(results.data.rps / results.memory.rps, 2)}×; one append + fdatasync on this disk just after: p50 ${fmt(floor, 2)} ms`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    header: ['recordings', 'filed before (state)', 'filings/s', 'p50', 'p99', 'non-2xx', 'ready in', 'files after / rewrite'],
    rows,
    verdicts,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await sandboxDurability();
  console.log([r.header, ...r.rows].map((x) => x.join('  ')).join('\n'));
  console.log(r.verdicts.join('\n'));
}
