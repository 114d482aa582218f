// A server that answers with hostile responses, seen as a user sees them: through runCli, with
// the exit code, the one-line message, bounded time and memory, and never a stack trace or the
// API key on stderr. (The client-level checks of the same faults are in test/api.)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { fakeTime } from '../helpers/clock.js';
import { page, problem, recording } from '../helpers/fixtures.js';
import { bufferIO } from '../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

const KEY = 'service_pk_hostile_0123456789abcdef';
const STACK_FRAME = /^\s+at .+(\(|:\d+)/m;

let server: ScenarioServer;
let configDir: string;

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'rfs-hostile-'));
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
beforeEach(async () => {
  server = await startScenarioServer();
});
afterEach(async () => {
  await server.close();
});

interface Run {
  code: number;
  stdout: string;
  /** stdout as the bytes written, to check that they are valid UTF-8. */
  stdoutBytes: Buffer;
  stderr: string;
  ms: number;
  /** The waits between attempts, on an injected clock: nothing here waits for them for real. */
  waits: number[];
}

async function rfs(argv: string[], base = server.url): Promise<Run> {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: KEY, RFS_BASE_URL: base } });
  const raw: Buffer[] = [];
  const stdout = new PassThrough();
  stdout.on('data', (chunk: Buffer) => raw.push(chunk));
  t.io.stdout = stdout;
  const time = fakeTime();
  const started = performance.now();
  const code = await runCli(argv, t.io, { clock: time.clock });
  const bytes = Buffer.concat(raw);
  return {
    code,
    stdout: bytes.toString('utf8'),
    stdoutBytes: bytes,
    stderr: t.stderr(),
    ms: performance.now() - started,
    waits: time.waits,
  };
}

/** What every failing run must hold: one error line first, no stack trace, no key, no markup. */
function expectCleanFailure(run: Run, firstLine: RegExp): void {
  expect(run.stderr.split('\n')[0]).toMatch(firstLine);
  expect(run.stderr).not.toMatch(STACK_FRAME);
  expect(run.stderr).not.toContain(KEY);
  expect(run.stderr).not.toMatch(/<html|<body|<h1/i);
  expect(run.stderr).not.toContain('this is a bug in rfs');
}

const html = (title: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>nginx</p></body></html>`;

describe('error pages that are not problem details', () => {
  it('a proxy HTML 502 page exits 6 after the retries, naming the status and not the HTML', async () => {
    const page502 = { status: 502, headers: { 'content-type': 'text/html' }, body: html('502 Bad Gateway') };
    server.queue(page502, page502);
    const run = await rfs(['recordings', 'list', '--max-retries', '1']);
    expect(run.code).toBe(6);
    expectCleanFailure(run, /^error: Bad Gateway \(HTTP_502, HTTP 502, request none\)$/);
    expect(run.stderr).toContain('still HTTP 502 after 2 attempts; try again later');
    expect(server.requests).toHaveLength(2);
    expect(run.waits).toEqual([500]);
    // cli.md Output: a list whose first request fails prints nothing on stdout (no `[]`).
    expect(run.stdout).toBe('');
    server.verify();
  }, 10_000);

  it('an HTML 404 page exits 4 at once', async () => {
    server.queue({ status: 404, headers: { 'content-type': 'text/html' }, body: html('404 Not Found') });
    const run = await rfs(['recordings', 'get', 'rec_1']);
    expect(run.code).toBe(4);
    expectCleanFailure(run, /^error: Not Found \(HTTP_404, HTTP 404, request none\)$/);
    expect(run.stdout).toBe('');
    server.verify();
  });

  it('a 404 whose problem body says status 500 exits 4: the HTTP status wins, and it is not retried', async () => {
    const lying = problem(404, 'RESOURCE_NOT_FOUND', 'Recording not found', 'req_lie');
    server.queue({ ...lying, body: { ...lying.body, status: 500 } });
    const run = await rfs(['recordings', 'get', 'rec_1', '--max-retries', '3']);
    expect(run.code).toBe(4);
    expectCleanFailure(run, /^error: Recording not found \(RESOURCE_NOT_FOUND, HTTP 404, request req_lie\)$/);
    expect(server.requests).toHaveLength(1);
    server.verify();
  });

  it('a 503 whose problem body says status 404 is retried by its HTTP status and exits 6', async () => {
    const lying = problem(503, 'RESOURCE_NOT_FOUND', 'Recording not found');
    const answer = { ...lying, body: { ...lying.body, status: 404 } };
    server.queue(answer, answer);
    const run = await rfs(['recordings', 'get', 'rec_1', '--max-retries', '1']);
    expect(run.code).toBe(6);
    expectCleanFailure(run, /HTTP 503/);
    expect(server.requests).toHaveLength(2);
    server.verify();
  }, 10_000);

  it('a problem body that echoes the API key and holds terminal escapes is printed redacted and escaped', async () => {
    server.queue({
      status: 403,
      headers: { 'content-type': 'application/problem+json' },
      body: { title: `key ${KEY} refused \x1b[2J\x1b]0;owned\x07`, status: 403, code: 'UNAUTHORIZED\u202e', requestId: `req_${KEY}` },
    });
    const run = await rfs(['recordings', 'get', 'rec_1', '-o', 'json']);
    expect(run.code).toBe(3);
    expectCleanFailure(
      run,
      /^error: key service_pk_…cdef refused \\x1b\[2J\\x1b\]0;owned\\x07 \(UNAUTHORIZED\\u202e, HTTP 403, request req_service_pk_…cdef\)$/,
    );
    expect(run.stderr).not.toMatch(/[\x1b\x07\u202e]/);
  });

  it('a redirect is not followed and exits 7, and the key never goes to the other host', async () => {
    const elsewhere = await startScenarioServer();
    try {
      server.queue({ status: 302, headers: { location: `${elsewhere.url}/api/v1/recordings` }, body: '' });
      const run = await rfs(['recordings', 'list']);
      expect(run.code).toBe(7);
      expectCleanFailure(run, /^error: Found \(HTTP_302, HTTP 302, request none\)$/);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('broken success answers', () => {
  it('truncated JSON on a 200 exits 7, saying it is not JSON', async () => {
    const whole = JSON.stringify(page([recording(1), recording(2)], null));
    server.queue({ headers: { 'content-type': 'application/json' }, body: whole.slice(0, Math.floor(whole.length / 2)) });
    const run = await rfs(['recordings', 'list', '-o', 'json']);
    expect(run.code).toBe(7);
    expectCleanFailure(run, /^error: the server's answer is not JSON$/);
    expect(run.stderr).toContain('check --base-url');
    // cli.md Output: nothing was fetched, so nothing is printed (no `[]` for `| jq length`).
    expect(run.stdout).toBe('');
    server.verify();
  });

  it('a connection closed in the middle of the body exits 6 (a network failure), after the retries', async () => {
    const whole = JSON.stringify(page([recording(1)], null));
    const raw = await startRawServer((socket) => {
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${whole.length}\r\n\r\n${whole.slice(0, 100)}`);
    });
    try {
      const run = await rfs(['recordings', 'list', '--max-retries', '1'], raw.url);
      expect(run.code).toBe(6);
      expectCleanFailure(
        run,
        /^error: GET \/api\/v1\/recordings\?.*: connection closed by the server \(ECONNCLOSED\) at 127\.0\.0\.1:\d+; gave up after 2 attempts$/,
      );
      expect(raw.connections()).toBe(2);
    } finally {
      await raw.close();
    }
  }, 10_000);

  it('a 50 MB body on a 200 exits 7 quickly, holding at most the 16 MiB it reads', async () => {
    // The server runs in a child process, so that the RSS measured here is the client's alone.
    const streaming = await startStreamingChild(50 * 1024 * 1024);
    try {
      // Warm up first: loading the command's modules costs memory of its own on a first run.
      server.queue({ body: page([], null) });
      expect((await rfs(['recordings', 'list'])).code).toBe(0);
      const memory = watchMemory();
      const run = await rfs(['recordings', 'list'], streaming.url);
      const grewBy = memory.stop();
      expect(run.code).toBe(7);
      expectCleanFailure(run, /^error: the server's answer is larger than 16 MiB; it was not read$/);
      expect(run.ms).toBeLessThan(5_000);
      // 16 MiB of chunks plus the heap growing for them: about 20 to 35 MB here. Reading the
      // whole 50 MB (and joining it) would cost well over 60.
      expect(grewBy).toBeLessThan(60 * 1024 * 1024);
      // The client stopped reading: the server never got to send it all.
      expect(await streaming.finished()).toBe(false);
    } finally {
      await streaming.close();
    }
  }, 20_000);

  it('a 50 MB body announced by content-length exits 7 without reading it', async () => {
    server.queue({
      headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) },
      streamBytes: 50 * 1024 * 1024,
    });
    const memory = watchMemory();
    const run = await rfs(['recordings', 'get', 'rec_1']);
    const grewBy = memory.stop();
    expect(run.code).toBe(7);
    expectCleanFailure(run, /^error: the server's answer is larger than 16 MiB; it was not read$/);
    expect(run.ms).toBeLessThan(3_000);
    expect(grewBy).toBeLessThan(30 * 1024 * 1024);
  }, 15_000);

  it('invalid UTF-8 inside the strings of a 200 answer is read as U+FFFD, and stdout stays valid UTF-8', async () => {
    const text = JSON.stringify(page([recording(1, { title: 'TITLE' })], null));
    const [before, after] = text.split('TITLE') as [string, string];
    // A lone continuation byte, an overlong NUL, a UTF-16 surrogate in CESU-8, a cut 4-byte sequence.
    const bad = Buffer.from([0x41, 0x80, 0x42, 0xc0, 0x80, 0x43, 0xed, 0xa0, 0x80, 0x44, 0xf0, 0x9f, 0x98]);
    const body = Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]);
    server.queue({ headers: { 'content-type': 'application/json' }, body }, { headers: { 'content-type': 'application/json' }, body });
    const fatal = new TextDecoder('utf-8', { fatal: true });

    const json = await rfs(['recordings', 'list', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(() => fatal.decode(json.stdoutBytes)).not.toThrow();
    const title = (JSON.parse(json.stdout) as { title: string }[])[0]?.title ?? '';
    expect(title.startsWith('A\ufffdB')).toBe(true);
    expect(title).toMatch(/D\ufffd+$/);

    const table = await rfs(['recordings', 'list', '-o', 'table']);
    expect(table.code).toBe(0);
    expect(() => fatal.decode(table.stdoutBytes)).not.toThrow();
    expect(table.stdout).toContain('A\ufffdB');
    expect(table.stderr).toBe('');
  });

  it("lone surrogates escaped in a 200 answer's JSON strings print as valid UTF-8 in every format", async () => {
    const body = JSON.stringify(page([recording(1, { title: 'x' })], null)).replace('"title":"x"', '"title":"a\\ud800b\\udfffc"');
    for (let i = 0; i < 3; i++) server.queue({ headers: { 'content-type': 'application/json' }, body });
    const fatal = new TextDecoder('utf-8', { fatal: true });
    for (const format of ['json', 'ndjson', 'table']) {
      const run = await rfs(['recordings', 'list', '-o', format]);
      expect(run.code).toBe(0);
      expect(() => fatal.decode(run.stdoutBytes)).not.toThrow();
      if (format !== 'table') expect(run.stdout).toContain('a\\ud800b\\udfffc');
      else expect(run.stdout).toContain('a\ufffdb\ufffdc');
    }
  });

  it('an answer nested thousands of levels deep exits 7 instead of overflowing the stack while printing', async () => {
    const depth = 50_000;
    const body = JSON.stringify(page([recording(1)], null)).replace('"title"', `"extra":${'['.repeat(depth)}${']'.repeat(depth)},"title"`);
    server.queue({ headers: { 'content-type': 'application/json' }, body }, { headers: { 'content-type': 'application/json' }, body });
    for (const format of ['json', 'table']) {
      const run = await rfs(['recordings', 'list', '-o', format]);
      expect(run.code).toBe(7);
      expectCleanFailure(run, /^error: the server's answer is nested more than 256 levels deep$/);
    }
  });

  it('rfs api: an answer nested 5,000 levels deep exits 7 like every other command, not 1', async () => {
    for (const depth of [5_000, 50_000]) {
      const body = `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      server.queue({ headers: { 'content-type': 'application/json' }, body });
      const run = await rfs(['api', '/recordings']);
      expect(run.code).toBe(7);
      expectCleanFailure(run, /^error: the server's answer is nested more than 256 levels deep$/);
      expect(run.stdout).toBe('');
    }
  });

  it('rfs api: an error answer nested thousands of levels deep keeps its exit code and shows the text as it came', async () => {
    const depth = 5_000;
    const body = `{"title":"Recording not found","status":404,"code":"RESOURCE_NOT_FOUND","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    server.queue({ status: 404, headers: { 'content-type': 'application/problem+json' }, body });
    const run = await rfs(['api', '/recordings/rec_1']);
    expect(run.code).toBe(4);
    expectCleanFailure(run, /^error: Not Found \(HTTP_404, HTTP 404, request none\)$/);
    expect(run.stdout).toBe(`${body}\n`);
  });

  it('an error answer nested thousands of levels deep still gives its exit code and a problem line with -o json', async () => {
    const depth = 30_000;
    const body = `{"title":"Recording not found","status":404,"code":"RESOURCE_NOT_FOUND","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    server.queue({ status: 404, headers: { 'content-type': 'application/problem+json' }, body });
    const run = await rfs(['recordings', 'get', 'rec_1', '-o', 'json']);
    expect(run.code).toBe(4);
    expectCleanFailure(run, /^error: Not Found \(HTTP_404, HTTP 404, request none\)$/);
    const lines = run.stderr.trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1] ?? '')).toEqual({ title: 'Not Found', status: 404, code: 'HTTP_404', requestId: null });
  });
});

describe('answers that never end, and waits that are too long', () => {
  it('a body that never ends exits 6 after --timeout 1 and --max-retries 0, in about a second', async () => {
    server.queue({ headers: { 'content-type': 'application/json' }, body: '{"data":[', endless: true });
    const run = await rfs(['recordings', 'list', '--timeout', '1', '--max-retries', '0']);
    expect(run.code).toBe(6);
    expectCleanFailure(
      run,
      /^error: GET \/api\/v1\/recordings\?.*: no complete answer from 127\.0\.0\.1:\d+ within 1 s; gave up after 1 attempt$/,
    );
    expect(run.stderr).toContain('raise --timeout');
    expect(run.ms).toBeGreaterThanOrEqual(900);
    expect(run.ms).toBeLessThan(3_000);
  }, 10_000);

  it('headers that never come exit 6 after two attempts of --timeout 1 with --max-retries 1', async () => {
    server.queue({ delayMs: 60_000, body: page([], null) }, { delayMs: 60_000, body: page([], null) });
    const run = await rfs(['recordings', 'list', '--timeout', '1', '--max-retries', '1']);
    expect(run.code).toBe(6);
    expectCleanFailure(run, /within 1 s; gave up after 2 attempts$/);
    expect(server.requests).toHaveLength(2);
    // Two attempts of 1 s (real timers: they race the network) and half a second of backoff
    // between them (random() = 0.5), on the injected clock.
    expect(run.waits).toEqual([500]);
    expect(run.ms).toBeLessThan(4_500);
  }, 10_000);

  it.each([
    [503, 'INTERNAL_ERROR'],
    [429, 'RATE_LIMIT_EXCEEDED'],
  ])('a %i with Retry-After: 86400 waits the capped 120 s (injected clock), says so, and retries', async (status, code) => {
    const answer = problem(status, code, 'come back tomorrow');
    server.queue({ ...answer, headers: { ...answer.headers, 'retry-after': '86400' } }, { body: page([recording(1)], null) });
    const run = await rfs(['recordings', 'list', '--max-retries', '5', '-o', 'ndjson']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('the server asked to wait 86400 s (rfs waits at most 120 s)');
    expect(server.requests).toHaveLength(2);
    expect(run.waits).toEqual([120_000]);
    expect(run.ms).toBeLessThan(2_000);
  });

  it('Retry-After: 999999999 on every answer still ends with exit 6 after the retries, each wait capped at 120 s', async () => {
    const answer = problem(503, 'INTERNAL_ERROR', 'come back much later');
    for (let i = 0; i < 3; i++) server.queue({ ...answer, headers: { ...answer.headers, 'retry-after': '999999999' } });
    const run = await rfs(['recordings', 'list', '--max-retries', '2']);
    expect(run.code).toBe(6);
    // Each wait says so first (cli.md: a wait longer than 2 s is told on stderr), then the error.
    expect(run.stderr).toMatch(/^error: come back much later \(INTERNAL_ERROR, HTTP 503, request req_test\)$/m);
    expect(run.stderr).toContain(
      'the server asked to wait 999999999 s (rfs waits at most 120 s): waiting 120.0s before retrying (attempt 2/3)',
    );
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.waits).toEqual([120_000, 120_000]);
  });
});

describe('answers that are not HTTP as rfs can read it', () => {
  it('200 KB of response headers exits 7, a broken contract, since a retry gets the same headers', async () => {
    server.queue({ headers: { 'content-type': 'application/json', 'x-filler': 'a'.repeat(200 * 1024) }, body: page([], null) });
    const run = await rfs(['recordings', 'list', '--max-retries', '3']);
    expect(run.code).toBe(7);
    expectCleanFailure(run, /^error: the server's answer has more header bytes than rfs reads \(16 KiB\)$/);
    expect(server.requests).toHaveLength(1);
  });

  it('bytes that are not HTTP at all exit 7 without retrying', async () => {
    const raw = await startRawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    try {
      const run = await rfs(['recordings', 'list', '--max-retries', '3'], raw.url);
      expect(run.code).toBe(7);
      expectCleanFailure(run, /^error: the server's answer is not valid HTTP \(HPE_\w+\)$/);
      expect(run.stderr).toContain('check --base-url');
      expect(raw.connections()).toBe(1);
    } finally {
      await raw.close();
    }
  });

  it('a status outside the contract (299, 999) is handled without a crash', async () => {
    server.queue(
      { status: 299, body: page([recording(1)], null) },
      { status: 999, headers: { 'content-type': 'text/plain' }, body: 'huh' },
    );
    const ok = await rfs(['recordings', 'list', '-o', 'ndjson']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ id: 'rec_0001' });
    const odd = await rfs(['recordings', 'list']);
    expect(odd.code).toBe(7);
    // Not 5xx, so not "transient": a status the contract does not know is a broken contract.
    expectCleanFailure(odd, /^error: unknown \(HTTP_999, HTTP 999, request none\)$/);
    expect(odd.stderr).toContain('HTTP 999 is not a status HTTP defines: check that --base-url');
    expect(odd.stderr).not.toContain('try again later');
    expect(server.requests).toHaveLength(2);
  });
});

describe('--verbose', () => {
  it('is the one way to see a stack trace, and still never shows the key', async () => {
    server.queue({ headers: { 'content-type': 'application/json' }, body: '{"data":' });
    const run = await rfs(['recordings', 'list', '--verbose']);
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(STACK_FRAME);
    expect(run.stderr).not.toContain(KEY);
  });
});

/** RSS growth while a run is in progress, sampled every 5 ms: the peak above the start. */
function watchMemory(): { stop: () => number } {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      return peak - start;
    },
  };
}

/**
 * An HTTP server in a child process that answers every request with `bytes` bytes of a 200
 * body, chunked and without a length, as fast as the client reads; `finished()` says whether it
 * ever sent the whole body.
 */
async function startStreamingChild(bytes: number): Promise<{ url: string; finished: () => Promise<boolean>; close: () => Promise<void> }> {
  const source = `
    const http = require('node:http');
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const pump = () => {
        while (sent < ${bytes} && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        if (!res.destroyed) res.end(() => process.stdout.write('finished\\n'));
      };
      res.on('close', () => { if (sent < ${bytes}) process.stdout.write('cut\\n'); });
      pump();
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
  `;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    lines.push(...text.split('\n').filter(Boolean));
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (n: number): Promise<string> => {
    while (lines.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return lines[n - 1] as string;
  };
  const port = await next(1);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    finished: async () => (await next(2)) === 'finished',
    close: async () => {
      child.kill();
      await exited;
    },
  };
}

/** A TCP server on 127.0.0.1:0 that answers each connection with whatever `onConnection` writes. */
async function startRawServer(
  onConnection: (socket: Socket) => void,
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const tcp: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Answer once the request has arrived, as a server would.
    socket.once('data', () => onConnection(socket));
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const { port } = tcp.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        tcp.close(() => resolve());
      }),
  };
}
