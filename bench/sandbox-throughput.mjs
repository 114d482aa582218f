// Sandbox throughput with wrk (Debian's): requests per second for GET /recordings?limit=50
// (full 50-item pages) and for POST filings, rate limit off, 16 connections, 10 s each.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fmt, ROOT, sandbox } from './lib.mjs';

function wrk(args, env = {}) {
  const out = execFileSync('wrk', ['-t2', '-c16', '-d10s', '--latency', ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = /\s50%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?';
  const p99 = /\s99%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?';
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? '0';
  return { rps, p50, p99, errors };
}

export async function sandboxThroughput() {
  const sb = await sandbox(['--rate-limit', '0', '--recordings', '1000']);
  try {
    const auth = `Authorization: Bearer ${sb.apiKeys.admin}`;
    const list = wrk(['-H', auth, `${sb.baseUrl}/api/v1/recordings?limit=50`]);
    const res = await fetch(`${sb.baseUrl}/api/v1/recordings?limit=100`, { headers: { authorization: `Bearer ${sb.apiKeys.admin}` } });
    const ids = (await res.json()).data.map((r) => r.id).join(',');
    const filings = wrk(['-s', join(ROOT, 'bench', 'filings.lua'), sb.baseUrl], { RFS_BENCH_IDS: ids, RFS_BENCH_KEY: sb.apiKeys.admin });
    return {
      header: ['request', 'requests/s', 'p50', 'p99', 'non-2xx'],
      rows: [
        ['GET /recordings?limit=50', fmt(list.rps, 0), list.p50, list.p99, list.errors],
        ['POST /recordings/:id/filings', fmt(filings.rps, 0), filings.p50, filings.p99, filings.errors],
      ],
      verdicts: [],
    };
  } finally {
    await sb.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await sandboxThroughput();
  console.log([r.header, ...r.rows].map((x) => x.join('  ')).join('\n'));
}
