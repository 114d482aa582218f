// Redaction, end to end: a server that echoes the caller's API key and a webhook secret back in
// every problem (title, detail, code, request id, an extra field) and in its response headers,
// raw, percent-encoded and JSON-escaped. Every command that can fail runs against it, in text and
// JSON modes, with and without -v, in-process and as the built bin/rfs.js, and neither secret may
// appear anywhere in what it prints. The key has characters (`/`, `+`, `=`) that end the key
// pattern early, so only redaction of the exact key the client knows removes all of it.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { RFS_BIN, runRfs } from '../helpers/child.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';

/** Every secret part carries "Leak": any "Leak" in any output is a leak. */
const KEY = 'service_pk_LeakAAAA1111/LeakBBBB2222+LeakCCCC3333=wxyz';
/** A key of the usual shape, as in the reported bug (sync --watch printed it whole). */
const PLAIN_KEY = 'service_pk_LeakPlainEEEE5555wxyz';
const WHSEC = 'whsec_LeakWhsecDDDD4444';
const LEAK = /Leak/;

const CODES: Record<number, string> = { 401: 'UNAUTHORIZED', 403: 'INSUFFICIENT_SCOPE', 422: 'INVALID_INPUT', 500: 'INTERNAL_ERROR' };
const STATUSES = [401, 403, 404, 422, 500] as const;

interface Echo {
  url: string;
  /** The status every answer has from now on. */
  status: number;
  /** Requests seen since the last reset (method and path). */
  seen: string[];
  close(): Promise<void>;
}

async function startEcho(): Promise<Echo> {
  const state = { status: 500, seen: [] as string[] };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.seen.push(`${req.method} ${req.url}`);
      const auth = req.headers.authorization ?? '';
      // Requests without a key (a forwarded webhook) still get a key echoed.
      const key = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : KEY;
      const encoded = encodeURIComponent(key);
      const escaped = key.replaceAll('/', '\\/');
      const status = state.status;
      const body = {
        type: `https://problems.example/${encoded}`,
        title: `refused: Authorization: Bearer ${key} (and the webhook secret ${WHSEC})`,
        status,
        code: CODES[status] ?? `NO_SUCH_THING_${key}`,
        detail: `you sent ${encoded}; as JSON: "${escaped}"; secret=${WHSEC}`,
        requestId: `req_${key}`,
        instance: `/api/v1/echo?api_key=${encoded}&secret=${WHSEC}`,
        echo: { authorization: `Bearer ${key}`, secret: WHSEC, forms: [key, encoded, escaped], [key]: 'as a name' },
      };
      const headers: Record<string, string> = {
        'content-type': 'application/problem+json',
        'x-request-id': `req_${key}`,
        'www-authenticate': `Bearer error="invalid_token", token="${key}"`,
        'x-echo-secret': WHSEC,
      };
      // Retried at once: verbose lines and retries happen without waiting on backoff.
      if (status >= 500) headers['retry-after'] = '0';
      res.writeHead(status, headers);
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const echo: Echo = {
    url: `http://127.0.0.1:${port}`,
    get status() {
      return state.status;
    },
    set status(value) {
      state.status = value;
    },
    get seen() {
      return state.seen;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return echo;
}

let echo: Echo;
let configDir: string;
let journalDir: string;

beforeAll(async () => {
  echo = await startEcho();
  configDir = mkdtempSync(join(tmpdir(), 'rfs-redact-'));
  journalDir = mkdtempSync(join(tmpdir(), 'rfs-redact-journal-'));
});
afterAll(async () => {
  await echo.close();
  rmSync(configDir, { recursive: true, force: true });
  rmSync(journalDir, { recursive: true, force: true });
});
afterEach(() => {
  echo.seen.length = 0;
});

const env = (key = KEY): NodeJS.ProcessEnv => ({
  RFS_CONFIG_DIR: configDir,
  RFS_BASE_URL: echo.url,
  RFS_API_KEY: key,
  RFS_WEBHOOK_SECRET: WHSEC,
  XDG_STATE_HOME: journalDir,
});

interface Mode {
  name: string;
  args: string[];
  stderrIsTTY?: boolean;
}
const MODES: Mode[] = [
  { name: 'text', args: ['-o', 'table'] },
  { name: 'text -v', args: ['-o', 'table', '-v'] },
  { name: 'text -v on a terminal (spinners)', args: ['-v'], stderrIsTTY: true },
  { name: 'json', args: ['-o', 'json'] },
  { name: 'json -v', args: ['-o', 'json', '-v'] },
  { name: 'ndjson -v', args: ['-o', 'ndjson', '-v'] },
];

interface Case {
  argv: string[];
  stdin?: string;
  /** Not every refusal ends a command that lists nothing (auth status reports it as a state). */
  exits?: 'nonzero' | 'any';
}

const journal = (): string => join(journalDir, `sync-${Math.random().toString(36).slice(2)}.jsonl`);

const CASES: Case[] = [
  { argv: ['auth', 'login', '--with-key', '--profile', 'echo'], stdin: KEY, exits: 'any' },
  { argv: ['auth', 'status'], exits: 'any' },
  { argv: ['recordings', 'list'] },
  { argv: ['recordings', 'list', '--all'] },
  { argv: ['recordings', 'get', 'rec_1'] },
  { argv: ['file', 'rec_1', '--provider', 'crm', '--external-id', 'CASE-1'] },
  { argv: ['file', '--from', '-', '--provider', 'crm'], stdin: '{"id":"rec_1","externalId":"A"}\n{"id":"rec_2","externalId":"B"}\n' },
  { argv: ['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook'] },
  { argv: ['webhooks', 'list'] },
  { argv: ['webhooks', 'delete', 'wh_1', '--yes'] },
  { argv: ['deliveries', 'list'] },
  { argv: ['deliveries', 'replay', 'dlv_1', 'dlv_2'] },
  { argv: ['deliveries', 'replay', '--all-failed', '--yes'] },
  { argv: ['sync', '--exec', 'cat', '--provider', 'crm'] },
];

function expectClean(what: string, out: { stdout: string; stderr: string }): void {
  for (const [name, text] of [
    ['stdout', out.stdout],
    ['stderr', out.stderr],
  ] as const) {
    const at = text.search(LEAK);
    if (at >= 0) {
      throw new Error(`${what}: a secret in ${name}: …${text.slice(Math.max(0, at - 80), at + 60)}…\n--- whole ${name} ---\n${text}`);
    }
  }
}

describe('every command that can fail, against a server that echoes the secrets', () => {
  for (const c of CASES) {
    it(`rfs ${c.argv.join(' ')}`, async () => {
      for (const status of STATUSES) {
        for (const mode of MODES) {
          echo.status = status;
          echo.seen.length = 0;
          // Unpaced: a batch's retries would otherwise wait on the burst of 10 (nothing to do with secrets).
          // One retry shows every retry line there is (a verbose line, a wait notice); five more
          // would only repeat them.
          const argv = [
            ...c.argv,
            ...mode.args,
            '--rate',
            '0',
            '--max-retries',
            '1',
            ...(c.argv[0] === 'sync' ? ['--journal', journal()] : []),
          ];
          const t = bufferIO({ env: env(), stdin: c.stdin ?? '', stderrIsTTY: mode.stderrIsTTY ?? false });
          // The run's clock: a retry's wait passes at once.
          const code = await runCli(argv, t.io, { clock: fakeTime().clock });
          const what = `HTTP ${status}, ${mode.name}: rfs ${argv.join(' ')} (exit ${code})`;
          expect(echo.seen.length, `${what}: no request reached the echo server`).toBeGreaterThan(0);
          if (c.exits !== 'any') expect(code, what).not.toBe(0);
          expect(t.stdout() + t.stderr(), `${what}: printed nothing`).not.toBe('');
          expectClean(what, { stdout: t.stdout(), stderr: t.stderr() });
        }
      }
    });
  }

  it('shows what the server said, redacted, rather than dropping it', async () => {
    echo.status = 401;
    const t = bufferIO({ env: env() });
    expect(await runCli(['recordings', 'list', '-o', 'json'], t.io)).toBe(3);
    expect(t.stderr()).toContain('refused: Authorization: Bearer service_pk_…wxyz (and the webhook secret whsec_…)');
    // The problem JSON is still JSON: redaction replaced values, it did not eat the text around them.
    const problem = JSON.parse(t.stderr().trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(problem).toMatchObject({
      requestId: 'req_service_pk_…wxyz',
      detail: 'you sent service_pk_…wxyz; as JSON: "service_pk_…wxyz"; secret=whsec_…',
      instance: '/api/v1/echo?api_key=…&secret=…',
      echo: { authorization: 'Bearer service_pk_…wxyz', secret: 'whsec_…', 'service_pk_…wxyz': 'as a name' },
    });
    expectClean('recordings list', { stdout: t.stdout(), stderr: t.stderr() });
  });

  it('rfs sync --watch: a failed pass is a warning, and the warning holds no secret', async () => {
    for (const [key, status] of [
      [PLAIN_KEY, 500],
      [PLAIN_KEY, 401],
      [KEY, 500],
      [KEY, 401],
    ] as const) {
      for (const mode of MODES) {
        echo.status = status;
        echo.seen.length = 0;
        const t = bufferIO({ env: env(key), stderrIsTTY: mode.stderrIsTTY ?? false });
        const controller = new AbortController();
        const argv = ['sync', '--exec', 'cat', '--provider', 'crm', '--watch', '--interval', '60', '--journal', journal(), ...mode.args];
        const done = runCli(argv, t.io, { signal: controller.signal });
        const deadline = Date.now() + 10_000;
        while (!t.stderr().includes('the pass failed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        controller.abort();
        const code = await done;
        const what = `HTTP ${status}, ${mode.name}, key ${key === KEY ? 'with / + =' : 'of the usual shape'}: rfs ${argv.join(' ')} (exit ${code})`;
        // Shown, and redacted: the warning still says what the server said (on a terminal
        // wrapped at words).
        expect(t.stderr().replace(/\s+/g, ' '), what).toContain(
          'the pass failed: refused: Authorization: Bearer service_pk_…wxyz (and the webhook secret whsec_…)',
        );
        expect(echo.seen.length, what).toBeGreaterThan(0);
        expectClean(what, { stdout: t.stdout(), stderr: t.stderr() });
      }
    }
  });

  it('rfs webhooks listen --forward-to the echo server', async () => {
    echo.status = 500;
    for (const mode of MODES) {
      const t = bufferIO({ env: env(), stderrIsTTY: mode.stderrIsTTY ?? false });
      const controller = new AbortController();
      const argv = ['webhooks', 'listen', '--port', '0', '--forward-to', `${echo.url}/hooks`, ...mode.args];
      const done = runCli(argv, t.io, { signal: controller.signal });
      let port: number | undefined;
      const deadline = Date.now() + 10_000;
      while (port === undefined && Date.now() < deadline) {
        const match = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(t.stderr());
        if (match) port = Number(match[1]);
        else await new Promise((r) => setTimeout(r, 10));
      }
      expect(port, t.stderr()).toBeDefined();
      const body = JSON.stringify({ event: 'recording.completed', recordingId: 'rec_1', secret: WHSEC, key: KEY });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = `sha256=${createHmac('sha256', WHSEC).update(`${timestamp}.`).update(body).digest('hex')}`;
      await post(`http://127.0.0.1:${port}/`, body, {
        'x-service-timestamp': timestamp,
        'x-service-signature': signature,
        'content-type': 'application/json',
      });
      // A bad signature too: the refusal is a warning line.
      await post(`http://127.0.0.1:${port}/`, body, {
        'x-service-timestamp': timestamp,
        'x-service-signature': `sha256=${'0'.repeat(64)}`,
      });
      controller.abort();
      await done;
      expect(echo.seen.length, `${mode.name}: the delivery was not forwarded`).toBeGreaterThan(0);
      expectClean(`webhooks listen, ${mode.name}`, { stdout: t.stdout(), stderr: t.stderr() });
    }
  });
});

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the built bin/rfs.js, as a child process', () => {
  // One status each (a process start costs more than a run in-process): retries, verbose lines
  // and a refused key all happen across them.
  const runs: { argv: string[]; stdin?: string; status: number }[] = [
    { argv: ['recordings', 'list', '-o', 'json', '-v'], status: 500 },
    { argv: ['recordings', 'get', 'rec_1', '-v'], status: 401 },
    { argv: ['file', '--from', '-', '--provider', 'crm', '-v'], stdin: '{"id":"rec_1","externalId":"A"}\n', status: 500 },
    { argv: ['deliveries', 'replay', 'dlv_1', '-o', 'json', '-v'], status: 403 },
    { argv: ['auth', 'login', '--with-key', '--profile', 'child', '-v'], stdin: KEY, status: 500 },
  ];
  for (const r of runs) {
    it(`HTTP ${r.status}: rfs ${r.argv.join(' ')}`, async () => {
      echo.status = r.status;
      const out = await runRfs(r.argv, { env: env(), ...(r.stdin === undefined ? {} : { stdin: r.stdin }) });
      expect(out.code, out.stderr).not.toBe(0);
      expect(echo.seen.length).toBeGreaterThan(0);
      expect(out.stderr).toContain('service_pk_…wxyz');
      expectClean(`HTTP ${r.status}: rfs ${r.argv.join(' ')}`, out);
    });
  }

  it('rfs sync --watch, stopped with SIGINT after its first failed pass', async () => {
    echo.status = 500;
    const child = spawn(
      process.execPath,
      [RFS_BIN, 'sync', '--exec', 'cat', '--provider', 'crm', '--watch', '--journal', journal(), '-v'],
      {
        env: { PATH: process.env.PATH, ...env() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const warned = new Promise<void>((resolve) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        if (stderr.includes('the pass failed')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await Promise.race([warned, exited]);
    child.kill('SIGINT');
    await exited;
    clearTimeout(timer);
    expect(echo.seen.length).toBeGreaterThan(0);
    expect(stderr).toContain('warning: the pass failed: refused: Authorization: Bearer service_pk_…wxyz');
    expectClean('rfs sync --watch (child)', { stdout, stderr });
  });
});
