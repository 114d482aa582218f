// The HTTP behaviour seen from the command line: every exit code of cli.md, the error line, the
// problem JSON on stderr with -o json, retries that end in exit 6, and --all that stops with
// the cursor to resume from. A scenario server answers exactly what each test queues.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { fakeTime, type FakeTime } from '../helpers/clock.js';
import { FINAL_ERRORS, page, problem, recording } from '../helpers/fixtures.js';
import { bufferIO } from '../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

let server: ScenarioServer;
let time: FakeTime;
let configDir: string;
const KEY = 'service_pk_exitcodes9876';

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'rfs-exit-'));
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
beforeEach(async () => {
  server = await startScenarioServer();
  // Retries wait on this clock: no test waits for real, and each can assert the waits chosen.
  time = fakeTime();
});
afterEach(async () => {
  await server.close();
});

function cli(argv: string[], o: { stdin?: string } = {}) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: KEY, RFS_BASE_URL: server.url }, stdin: o.stdin });
  return { t, run: () => runCli([...argv, '--max-retries', '2'], t.io, { clock: time.clock }) };
}

describe('exit codes', () => {
  it.each(FINAL_ERRORS)('HTTP %i %s exits %i after exactly one attempt', async (status, code, exit) => {
    server.queue(problem(status, code, `Problem ${code}`, 'req_42'));
    const { t, run } = cli(['recordings', 'get', 'rec_1']);
    expect(await run()).toBe(exit);
    expect(server.requests).toHaveLength(1);
    expect(t.stderr().split('\n')[0]).toBe(`error: Problem ${code} (${code}, HTTP ${status}, request req_42)`);
    server.verify();
  });

  it('names the missing scope in the advice line', async () => {
    server.queue(problem(403, 'INSUFFICIENT_SCOPE', 'Insufficient scope'));
    const { t, run } = cli(['file', 'rec_1', '--provider', 'crm', '--external-id', 'X']);
    expect(await run()).toBe(3);
    expect(t.stderr()).toContain('write:recordings');
  });

  // cli.md, exit codes: 6 is any 5xx. The ones not retried (501, 505, 511, 599) end at once with 6,
  // not 7: a status the table does not name would be a broken contract, a 5xx never is.
  it.each([501, 505, 507, 511, 599])('HTTP %i is a transient failure: exit 6, after one attempt (not retried)', async (status) => {
    server.queue(problem(status, 'SERVER_ERROR', 'Server error', 'req_5xx'));
    const { t, run } = cli(['recordings', 'get', 'rec_1']);
    expect(await run()).toBe(6);
    expect(server.requests).toHaveLength(1);
    expect(t.stderr().split('\n')[0]).toBe(`error: Server error (SERVER_ERROR, HTTP ${status}, request req_5xx)`);
  });

  it('HTTP 600, outside every class, is a broken contract: exit 7', async () => {
    server.queue(problem(600, 'ODD', 'Odd'));
    const { run } = cli(['recordings', 'get', 'rec_1']);
    expect(await run()).toBe(7);
  });

  it('exits 6 when 500 outlasts the retries, after 1 + max-retries attempts', async () => {
    server.queue(problem(500, 'INTERNAL_ERROR', 'boom'), problem(500, 'INTERNAL_ERROR', 'boom'), problem(500, 'INTERNAL_ERROR', 'boom'));
    const { t, run } = cli(['recordings', 'get', 'rec_1']);
    expect(await run()).toBe(6);
    expect(server.requests).toHaveLength(3);
    // Full jitter with random() = 0.5: half of 1 s, then half of 2 s.
    expect(time.waits).toEqual([500, 1000]);
    expect(t.stderr()).toMatch(/^error: boom \(INTERNAL_ERROR, HTTP 500, request req_test\)/);
    server.verify();
  });

  it('succeeds when a 500 is followed by a good answer', async () => {
    server.queue(problem(500, 'INTERNAL_ERROR', 'boom'), { body: { data: { ...recording(1), transcript: 'hello' } } });
    const { t, run } = cli(['recordings', 'get', 'rec_1', '-o', 'json']);
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout()).id).toBe('rec_0001');
    server.verify();
  });

  it('exits 6 on a reset connection that does not heal', async () => {
    server.queue({ reset: true }, { reset: true }, { reset: true });
    const { run } = cli(['recordings', 'get', 'rec_1']);
    expect(await run()).toBe(6);
    expect(server.requests).toHaveLength(3);
    expect(time.waits).toEqual([500, 1000]);
  });

  it('exits 7 when a success answer breaks the contract, naming the field', async () => {
    server.queue({ body: page([recording(1, { status: 'FINISHED' })], null) });
    const { t, run } = cli(['recordings', 'list']);
    expect(await run()).toBe(7);
    expect(t.stderr()).toContain('data[0].status');
  });

  it('exits 7 when a success answer is not JSON', async () => {
    server.queue({ headers: { 'content-type': 'text/html' }, body: '<html>hello</html>' });
    const { t, run } = cli(['recordings', 'list']);
    expect(await run()).toBe(7);
    expect(t.stderr()).not.toContain('<html>');
  });

  it('writes the problem object on stderr as one JSON line with -o json', async () => {
    server.queue(problem(404, 'RESOURCE_NOT_FOUND', 'Recording not found', 'req_9'));
    const { t, run } = cli(['recordings', 'get', 'rec_x', '-o', 'json']);
    expect(await run()).toBe(4);
    const lines = t.stderr().trim().split('\n');
    const json = JSON.parse(lines[lines.length - 1] ?? '');
    expect(json).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND', requestId: 'req_9' });
    expect(t.stdout()).toBe('');
  });

  it('exits 8 when a batch finished with a failed item, and reports each line', async () => {
    server.queue(
      {
        body: {
          data: {
            id: 'rec_1',
            lastSyncedAt: '2026-11-22T10:00:00Z',
            syncCount: 1,
            syncMetadata: { provider: 'crm', externalId: 'A', filedAt: '2026-11-22T10:00:00Z' },
          },
          meta: { replayed: false },
        },
      },
      problem(409, 'RECORDING_NOT_COMPLETED', 'Recording is not completed'),
    );
    const input = '{"id":"rec_1","externalId":"A"}\n{"id":"rec_2","externalId":"B"}\n';
    const { t, run } = cli(['file', '--from', '-', '--provider', 'crm'], { stdin: input });
    expect(await run()).toBe(8);
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results).toEqual([
      { line: 1, id: 'rec_1', ok: true, replayed: false, syncCount: 1 },
      {
        line: 2,
        id: 'rec_2',
        ok: false,
        error: { status: 409, code: 'RECORDING_NOT_COMPLETED', title: 'Recording is not completed', requestId: 'req_test' },
      },
    ]);
    expect(t.stderr()).toMatch(/1 filed, 1 failed/);
  });

  it('exits 130 when interrupted, closing the JSON array it started', async () => {
    server.queue({ body: page([recording(1)], 'c2') }, { delayMs: 5000, body: page([recording(2)], null) });
    const controller = new AbortController();
    const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: KEY, RFS_BASE_URL: server.url } });
    const running = runCli(['recordings', 'list', '--all', '-o', 'json'], t.io, { signal: controller.signal });
    // Interrupted once the first page is out and the second is on its way (held 5 s).
    const before = server.requests.length;
    await vi.waitFor(
      () => {
        expect(t.stdout()).toContain('rec_0001');
        expect(server.requests.length).toBe(before + 2);
      },
      { timeout: 5000, interval: 10 },
    );
    controller.abort();
    expect(await running).toBe(130);
    expect(JSON.parse(t.stdout()).map((r: { id: string }) => r.id)).toEqual(['rec_0001']);
    expect(t.stderr()).toContain('--cursor c2');
  });
});

describe('--all', () => {
  it('walks several pages through a 429 and prints every item exactly once', async () => {
    server.queue(
      { body: page([recording(1), recording(2)], 'c2', 2) },
      {
        status: 429,
        headers: { 'retry-after': '0', 'content-type': 'application/problem+json' },
        body: { title: 'slow down', status: 429, code: 'RATE_LIMIT_EXCEEDED', requestId: 'r' },
      },
      { body: page([recording(3), recording(4)], 'c3', 2) },
      { body: page([recording(5)], null, 2) },
    );
    const { t, run } = cli(['recordings', 'list', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    const ids = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(['rec_0001', 'rec_0002', 'rec_0003', 'rec_0004', 'rec_0005']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/recordings?status=COMPLETED&syncState=unsynced&limit=2',
      '/api/v1/recordings?status=COMPLETED&syncState=unsynced&limit=2&cursor=c2',
      '/api/v1/recordings?status=COMPLETED&syncState=unsynced&limit=2&cursor=c2',
      '/api/v1/recordings?status=COMPLETED&syncState=unsynced&limit=2&cursor=c3',
    ]);
    server.verify();
  });

  it('stops on an error with valid output so far and the cursor to resume from', async () => {
    server.queue(
      { body: page([recording(1)], 'next-page-cursor', 1) },
      problem(500, 'INTERNAL_ERROR', 'down'),
      problem(500, 'INTERNAL_ERROR', 'down'),
      problem(500, 'INTERNAL_ERROR', 'down'),
    );
    const { t, run } = cli(['recordings', 'list', '--all', '--limit', '1', '-o', 'json']);
    expect(await run()).toBe(6);
    expect(JSON.parse(t.stdout())).toHaveLength(1);
    expect(t.stderr()).toContain('resume with: --cursor next-page-cursor');
  });

  it('prints a notice with the next cursor when there are more pages and --all is not given', async () => {
    server.queue({ body: page([recording(1)], 'more-here', 1) });
    const { t, run } = cli(['recordings', 'list', '--limit', '1', '-o', 'json']);
    expect(await run()).toBe(0);
    expect(t.stderr()).toContain('--cursor more-here');
    const quiet = cli(['recordings', 'list', '--limit', '1', '-o', 'json', '--quiet']);
    server.queue({ body: page([recording(1)], 'more-here', 1) });
    expect(await quiet.run()).toBe(0);
    expect(quiet.t.stderr()).toBe('');
  });

  it('stops after --max-items', async () => {
    server.queue({ body: page([recording(1), recording(2)], 'c2', 2) }, { body: page([recording(3), recording(4)], 'c3', 2) });
    const { t, run } = cli(['recordings', 'list', '--all', '--limit', '2', '--max-items', '3', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    expect(t.stdout().trim().split('\n')).toHaveLength(3);
    expect(server.requests).toHaveLength(2);
  });
});

describe('paths and idempotency', () => {
  it.each([['a/b'], ['..'], ['x?y=1'], ['x#frag'], ['%2F'], ['.']])('keeps the id %s inside one path segment', async (id) => {
    server.queue(problem(404, 'RESOURCE_NOT_FOUND', 'nope'));
    const { run } = cli(['recordings', 'get', id]);
    expect(await run()).toBe(4);
    const url = server.requests[0]?.url ?? '';
    expect(url.startsWith('/api/v1/recordings/')).toBe(true);
    const segment = url.slice('/api/v1/recordings/'.length);
    expect(segment).not.toMatch(/[/?#]/);
    expect(decodeURIComponent(segment)).toBe(id);
  });

  it('sends the same Idempotency-Key on every attempt of one webhooks create', async () => {
    const created = {
      status: 201,
      body: {
        data: {
          id: 'wh_1',
          url: 'https://h.example.com',
          events: ['recording.completed'],
          secret: 'whsec_abcdefabcdefabcdefabcdefabcdefab',
          createdAt: '2026-11-22T10:00:00Z',
        },
      },
    };
    server.queue(problem(503, 'INTERNAL_ERROR', 'busy'), { reset: true }, created);
    const { t, run } = cli(['webhooks', 'create', '--url', 'https://h.example.com', '-o', 'json']);
    expect(await run()).toBe(0);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(String(keys[0])).toMatch(/^rfs-[0-9a-f-]{36}$/);
    expect(JSON.parse(t.stdout()).secret).toBe('whsec_abcdefabcdefabcdefabcdefabcdefab');
  });
});

describe('long waits', () => {
  it('say on stderr why and for how long when a retry waits more than 2 s', async () => {
    server.queue(
      {
        status: 429,
        headers: { 'retry-after': '3', 'content-type': 'application/problem+json' },
        body: { title: 'slow down', status: 429, code: 'RATE_LIMIT_EXCEEDED', requestId: 'r' },
      },
      { body: page([recording(1)], null) },
    );
    const { t, run } = cli(['recordings', 'list']);
    expect(await run()).toBe(0);
    // The wait asked for by Retry-After, and only that one, on the injected clock.
    expect(time.waits).toEqual([3000]);
    expect(t.stderr()).toMatch(/waiting 3\.0s before retrying \(attempt 2\/3\)/);
    const quiet = cli(['recordings', 'list', '--quiet']);
    server.queue(
      { status: 429, headers: { 'retry-after': '3' }, body: { status: 429, code: 'RATE_LIMIT_EXCEEDED' } },
      { body: page([], null) },
    );
    expect(await quiet.run()).toBe(0);
    expect(time.waits).toEqual([3000, 3000]);
    expect(quiet.t.stderr()).toBe('');
  });

  it('say a pacing wait (--rate) is a wait, not a retry: nothing failed', async () => {
    const pages = Array.from({ length: 11 }, (_, i) => ({ body: page([recording(i + 1)], i < 10 ? `P${i + 2}` : null, 1) }));
    server.queue(...pages);
    const { t, run } = cli(['recordings', 'list', '--all', '--limit', '1', '--rate', '10', '-o', 'json']);
    expect(await run()).toBe(0);
    // A burst of ten, then one request per 6 s.
    expect(time.waits).toEqual([6000]);
    expect(t.stderr()).toBe('pacing: at most 10 requests per minute (--rate): waiting 6.0s\n');
    expect(JSON.parse(t.stdout())).toHaveLength(11);
  });

  it('show a spinner on a terminal that counts the wait down with the attempt number, then clear it', async () => {
    server.queue(
      {
        status: 503,
        headers: { 'retry-after': '5', 'content-type': 'application/problem+json' },
        body: { title: 'busy', status: 503, code: 'INTERNAL_ERROR', requestId: 'r' },
      },
      { body: { data: { ...recording(1), transcript: 'hello' } } },
    );
    const t = bufferIO({ stderrIsTTY: true, env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: KEY, RFS_BASE_URL: server.url } });
    expect(await runCli(['recordings', 'get', 'rec_1', '-o', 'json'], t.io, { clock: time.clock })).toBe(0);
    // The client's wait, then the spinner's countdown in steps of a second, both on the injected
    // clock: ora loads on first use, so the spinner may start only after the instant wait is over
    // (and then counts down what is left of it, on the same clock).
    await vi.waitFor(() => expect(t.stderr()).toContain('retrying in 5s (attempt 2/6)'));
    expect(time.waits[0]).toBe(5000);
    expect(time.waits.slice(1).every((ms) => ms === 1000)).toBe(true);
    const shown = [...t.stderr().matchAll(/retrying in (\d+)s \(attempt 2\/6\)/g)].map((m) => Number(m[1]));
    expect(shown[0]).toBe(5);
    expect(shown.every((n, i) => i === 0 || n <= (shown[i - 1] ?? 0))).toBe(true);
    expect(t.stderr()).not.toContain('waiting 5.0s');
    expect(JSON.parse(t.stdout()).id).toBe('rec_0001');
  });
});
