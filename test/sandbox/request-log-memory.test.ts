// the request log grew with the size of requests. 10,000 requests with 15 KB
// URLs took the sandbox from 56 to 251 MB, and a sandbox with a 96 MB heap died after ~5,200:
// the 1,024-character cut was a slice, which keeps the whole URL alive. Run as a user runs it
// (the built bin/rfs.js), with its heap capped: it must answer every request and stay up.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../helpers/child.js';

const REQUESTS = 12_000;
const HEAP_MB = 96;

let child: ReturnType<typeof spawn>;
let baseUrl: string;
let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
let stderr = '';

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, RFS_BIN, 'sandbox', '--port', '0', '--rate-limit', '0', '--seed', '1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  child.once('exit', (code, signal) => {
    exited = { code, signal };
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}: ${stderr}`)));
  });
  baseUrl = (JSON.parse(line) as { baseUrl: string }).baseUrl;
}, 30_000);

afterAll(async () => {
  if (exited === null && child.pid !== undefined) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGTERM');
    await gone;
  }
});

/** One GET with the target exactly as written; resolves with the status, or null when the connection failed. */
function get(agent: Agent, target: string): Promise<number | null> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path: target, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
    });
    req.on('error', () => resolve(null));
    req.end();
  });
}

function rssMb(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(line) / 1024;
}

describe('the request log under large requests', () => {
  it(`keeps ${REQUESTS} requests with 15 KB URLs within a ${HEAP_MB} MB heap: each entry holds its cut, not the URL`, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    let next = 0;
    const statuses = new Map<number | null, number>();
    // Long paths and long queries in turn: a short part cut from a long target must not keep it alive either.
    const target = (i: number): string =>
      i % 2 === 0 ? `/api/v1/${i.toString(36)}${'p'.repeat(15_000)}` : `/api/v1/recordings?x${i.toString(36)}=${'q'.repeat(15_000)}`;
    async function worker(): Promise<void> {
      while (next < REQUESTS && exited === null) {
        const status = await get(agent, target(next++));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
    await Promise.all(Array.from({ length: 8 }, worker));
    agent.destroy();
    expect(exited, stderr.slice(-2000)).toBeNull();
    expect(Object.fromEntries(statuses)).toEqual({ 404: REQUESTS / 2, 401: REQUESTS / 2 });
    const log = (await (await fetch(`${baseUrl}/_sandbox/requests?since=${REQUESTS - 10}`)).json()) as {
      data: { path: string; query: string }[];
    };
    expect(log.data).toHaveLength(10);
    for (const entry of log.data) expect((entry.path + entry.query).length).toBeLessThan(2 * 1024 + 2);
    expect(rssMb(child.pid as number)).toBeLessThan(HEAP_MB + 150);
  }, 240_000);
});
