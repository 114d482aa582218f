// rfs doctor (cli.md, doctor): one row per check against the real sandbox and scripted
// servers; exit 0 when nothing failed, else the first failure's class (3 key, 6 network); and
// it changes nothing: GETs only (the sandbox's request log), no mode tightened, no lock taken.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { page } from '../../helpers/fixtures.js';
import { bufferIO, type BufferIOOptions } from '../../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../../helpers/scenario-server.js';
import { type Harness, start } from '../../sandbox/helpers.js';

interface Row {
  check: string;
  result: 'ok' | 'warn' | 'fail' | 'skipped';
  detail: string;
}

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await start();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-doctor-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const configDir = () => join(dir, 'config');
const journal = () => join(dir, 'state', 'rfs', 'sync-default.jsonl');

/** A profile as `auth login` saves it: 0600 in 0700. */
function saveProfile(baseUrl: string, apiKey: string): void {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(configDir(), 'config.json'),
    JSON.stringify({ defaultProfile: 'default', profiles: { default: { baseUrl, apiKey } } }),
    {
      mode: 0o600,
    },
  );
}

async function doctor(argv: string[] = [], o: BufferIOOptions & { now?: number } = {}) {
  // The sandbox's Date header is the real time: "now" for this run is the real one too, unless
  // a test's scenario server dates its answers.
  const t = bufferIO({ ...o, env: { RFS_CONFIG_DIR: configDir(), XDG_STATE_HOME: join(dir, 'state'), ...o.env } });
  const time = fakeTime(o.now ?? Date.now());
  const code = await runCli(['doctor', '-o', 'json', ...argv], t.io, { clock: time.clock });
  const rows = JSON.parse(t.stdout()) as Row[];
  const by = Object.fromEntries(rows.map((r) => [r.check, r]));
  return { code, rows, by, stderr: t.stderr(), waits: time.waits };
}

const CHECKS = [
  'config-file',
  'profile',
  'key-source',
  'base-url',
  'dns',
  'tcp',
  'tls',
  'round-trip',
  'key',
  'scopes',
  'subscription',
  'clock',
  'failed-deliveries',
  'sync-journal',
];

describe('rfs doctor against the sandbox', () => {
  it('a healthy setup: every check passes, exit 0, and only GETs were sent', async () => {
    saveProfile(h.base, h.keys.admin);
    mkdirSync(join(dir, 'state', 'rfs'), { recursive: true });
    writeFileSync(
      journal(),
      `${JSON.stringify({ step: 'filed', id: 'rec_1', externalId: 'X', syncCount: 1, at: '2026-11-22T14:00:00Z' })}\n`,
    );
    await h.sandbox.control.clearRequests();

    const { code, rows, by } = await doctor();
    expect(code).toBe(0);
    expect(rows.map((r) => r.check)).toEqual(CHECKS);
    for (const row of rows) expect(row.result, `${row.check}: ${row.detail}`).toBe(row.check === 'tls' ? 'skipped' : 'ok');
    expect(by.tls?.detail).toMatch(/plain http to loopback/);
    expect(by['key-source']?.detail).toMatch(/^profile default: service_pk_…/);
    expect(by.scopes?.detail).toMatch(/read:recordings yes, manage:webhooks yes/);
    expect(by['sync-journal']?.detail).toMatch(/nothing pending/);
    expect(JSON.stringify(rows)).not.toContain(h.keys.admin);

    const sent = await h.sandbox.control.requests();
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/recordings',
      'GET /api/v1/webhooks',
      'GET /api/v1/webhooks/deliveries',
    ]);
  });

  it('a key the service refuses: the key check fails, exit 3', async () => {
    saveProfile(h.base, h.keys.revoked);
    const { code, by } = await doctor();
    expect(code).toBe(3);
    expect(by.key).toMatchObject({ result: 'fail' });
    expect(by.key?.detail).toMatch(/UNAUTHORIZED/);
    expect(by.clock?.result).toBe('skipped');
  });

  it('a key without a subscription fails the subscription check, exit 3', async () => {
    const { code, by } = await doctor([], { env: { RFS_API_KEY: h.keys.noSubscription, RFS_BASE_URL: h.base } });
    expect(code).toBe(3);
    expect(by.subscription?.result).toBe('fail');
    expect(by['key-source']?.detail).toMatch(/^RFS_API_KEY/);
  });

  it('a read-only key: scopes learned from GETs, failed deliveries skipped, exit 0', async () => {
    const { code, by } = await doctor([], { env: { RFS_API_KEY: h.keys.readOnly, RFS_BASE_URL: h.base } });
    expect(code).toBe(0);
    expect(by.scopes?.detail).toMatch(/read:recordings yes, manage:webhooks no/);
    expect(by['failed-deliveries']?.result).toBe('skipped');
  });

  it('no key at all: exit 3 with the two ways to give one', async () => {
    const { code, by } = await doctor([], { env: { RFS_BASE_URL: h.base } });
    expect(code).toBe(3);
    expect(by['key-source']?.detail).toMatch(/rfs auth login.*RFS_API_KEY/);
  });

  it('reports loose modes, a pending journal and a stale lock without changing any of them', async () => {
    saveProfile(h.base, h.keys.admin);
    chmodSync(join(configDir(), 'config.json'), 0o644);
    chmodSync(configDir(), 0o755);
    mkdirSync(join(dir, 'state', 'rfs'), { recursive: true });
    writeFileSync(journal(), `${JSON.stringify({ step: 'started', id: 'rec_9', attempt: 1, at: '2026-11-22T14:00:00Z' })}\n`);
    writeFileSync(`${journal()}.lock`, '999999\n');
    const before = readFileSync(journal(), 'utf8');

    const { code, by } = await doctor();
    expect(code).toBe(0);
    expect(by['config-file']).toMatchObject({ result: 'warn' });
    expect(by['config-file']?.detail).toMatch(/0644, not 0600.*0755, not 0700/);
    expect(by['sync-journal']).toMatchObject({ result: 'warn' });
    expect(by['sync-journal']?.detail).toMatch(/1 pending.*stale lock of pid 999999/);

    expect(statSync(join(configDir(), 'config.json')).mode & 0o777).toBe(0o644);
    expect(statSync(configDir()).mode & 0o777).toBe(0o755);
    expect(readFileSync(`${journal()}.lock`, 'utf8')).toBe('999999\n');
    expect(readFileSync(journal(), 'utf8')).toBe(before);
  });
});

describe('rfs doctor and the sync journal', () => {
  it('tells a command that failed cleanly (failing, parked) from a sync stopped midway (pending)', async () => {
    mkdirSync(join(dir, 'state', 'rfs'), { recursive: true });
    const error = { code: 'COMMAND_FAILED', title: 'exit 1' };
    const at = '2026-11-22T14:00:00Z';
    writeFileSync(
      journal(),
      [
        { step: 'started', id: 'rec_f', attempt: 1, at },
        { step: 'failed', id: 'rec_f', attempt: 1, failures: 1, error, at },
        { step: 'started', id: 'rec_p', attempt: 10, at },
        { step: 'failed', id: 'rec_p', attempt: 10, failures: 10, parked: true, error, at },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    const clean = await doctor([], { env: { RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
    expect(clean.by['sync-journal']).toMatchObject({ result: 'warn' });
    expect(clean.by['sync-journal']?.detail).toMatch(
      /1 failing \(their command failed.*1 parked \(never run again until rfs sync --retry-parked\)/,
    );
    expect(clean.by['sync-journal']?.detail).not.toMatch(/stopped midway/);

    writeFileSync(journal(), `${JSON.stringify({ step: 'started', id: 'rec_s', attempt: 1, at })}\n`, { flag: 'a' });
    const stopped = await doctor([], { env: { RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
    expect(stopped.by['sync-journal']?.detail).toMatch(/^.*: 1 pending \(a sync was stopped midway.*; 1 failing .*; 1 parked /);
  });
});

describe('rfs doctor on an 80-column terminal', () => {
  it('wraps its advice at words under DETAIL instead of cutting it', async () => {
    mkdirSync(join(dir, 'state', 'rfs'), { recursive: true });
    const at = '2026-11-22T14:00:00Z';
    // A long DETAIL: the journal's warnings and its path.
    writeFileSync(
      journal(),
      [
        { step: 'started', id: 'rec_s', attempt: 1, at },
        { step: 'started', id: 'rec_f', attempt: 1, at },
        { step: 'failed', id: 'rec_f', attempt: 1, failures: 1, error: { code: 'COMMAND_FAILED', title: 'exit 1' }, at },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    const env = {
      RFS_CONFIG_DIR: configDir(),
      XDG_STATE_HOME: join(dir, 'state'),
      RFS_API_KEY: h.keys.admin,
      RFS_BASE_URL: h.base,
      NO_COLOR: '1',
    };
    const t = bufferIO({ stdoutIsTTY: true, columns: 80, env });
    await runCli(['doctor', '-o', 'table'], t.io, { clock: fakeTime(Date.now()).clock });
    const lines = t.stdout().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    // A cut DETAIL would end its line with an ellipsis (the redacted key holds one mid-line).
    expect(t.stdout()).not.toMatch(/…$/m);
    const start = lines.findIndex((l) => l.startsWith('sync-journal'));
    const column = lines[0]?.indexOf('DETAIL') ?? -1;
    const rest = lines.slice(start + 1).filter((l) => l.length > column && l.slice(0, column).trim() === '');
    const detail = [lines[start]?.slice(column) ?? '', ...rest.map((l) => l.slice(column))].join(' ');
    expect(detail).toMatch(
      /1 pending \(a sync was stopped midway; the next rfs sync finishes them first\); 1 failing \(their command failed; rfs sync status says when each is tried again\)/,
    );
  });
});

describe('rfs doctor and a running sync', () => {
  it('a journal locked by a live process is in use, not stale: ok, and the lock is left alone', async () => {
    mkdirSync(join(dir, 'state', 'rfs'), { recursive: true });
    writeFileSync(journal(), '');
    // Our parent is alive and is not this process: the owner a running rfs sync would be.
    writeFileSync(`${journal()}.lock`, `${process.ppid}\n`);
    const { by } = await doctor([], { env: { RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
    expect(by['sync-journal']).toMatchObject({ result: 'ok' });
    expect(by['sync-journal']?.detail).toMatch(new RegExp(`nothing pending; in use by pid ${process.ppid}`));
    expect(readFileSync(`${journal()}.lock`, 'utf8')).toBe(`${process.ppid}\n`);
  });
});

describe('rfs doctor against a scripted server', () => {
  let server: ScenarioServer;
  beforeEach(async () => {
    server = await startScenarioServer();
  });
  afterEach(async () => {
    server.verify();
    await server.close();
  });

  it('a server clock 10 minutes ahead is a warning (signatures allow 300 s), and failed deliveries waiting too', async () => {
    const now = Date.parse('2026-11-22T14:05:00Z');
    const date = { date: new Date(now + 10 * 60_000).toUTCString() };
    server.queue(
      { expect: { url: '/api/v1/recordings?limit=1' }, headers: date, body: page([], null, 1) },
      { expect: { url: '/api/v1/webhooks?limit=1' }, headers: date, body: page([], null, 1) },
      {
        expect: { method: 'GET', url: '/api/v1/webhooks/deliveries?status=FAILED&limit=50' },
        headers: date,
        body: {
          data: [
            { id: 'dlv_1', status: 'FAILED' },
            { id: 'dlv_2', status: 'FAILED' },
          ],
        },
      },
    );
    const { code, by } = await doctor([], { now, env: { RFS_API_KEY: 'service_pk_clockKEY_1234', RFS_BASE_URL: server.url } });
    expect(code).toBe(0);
    expect(by.clock).toMatchObject({ result: 'warn' });
    expect(by.clock?.detail).toMatch(/600 s ahead/);
    expect(by['failed-deliveries']).toMatchObject({ result: 'warn' });
    expect(by['failed-deliveries']?.detail).toMatch(/^2 waiting/);
  });

  it('counts FAILED deliveries of a deleted subscription apart: they are not waiting, nothing can replay them', async () => {
    const now = Date.parse('2026-11-22T14:05:00Z');
    const date = { date: new Date(now).toUTCString() };
    const failed = (id: string, subscriptionId: string) => ({ id, status: 'FAILED', subscriptionId });
    server.queue(
      { expect: { url: '/api/v1/recordings?limit=1' }, headers: date, body: page([], null, 1) },
      { expect: { url: '/api/v1/webhooks?limit=1' }, headers: date, body: page([], null, 1) },
      {
        expect: { method: 'GET', url: '/api/v1/webhooks/deliveries?status=FAILED&limit=50' },
        headers: date,
        body: { data: [failed('dlv_1', 'wh_live'), failed('dlv_2', 'wh_gone'), failed('dlv_3', 'wh_gone')] },
      },
      {
        expect: { method: 'GET', url: '/api/v1/webhooks?limit=50' },
        headers: date,
        body: page(
          [{ id: 'wh_live', url: 'https://x.test/h', events: ['recording.completed'], createdAt: '2026-11-01T00:00:00Z' }],
          null,
          50,
        ),
      },
      // No list of its own: a FAILED list that is not full shows every FAILED delivery (the full case: behind-full-list.test.ts).
    );
    const { code, by } = await doctor([], { now, env: { RFS_API_KEY: 'service_pk_orphanKEY_1234', RFS_BASE_URL: server.url } });
    expect(code).toBe(0);
    expect(by['failed-deliveries']).toEqual({
      check: 'failed-deliveries',
      result: 'warn',
      detail:
        '1 waiting (see rfs deliveries summary; rfs deliveries replay --all-failed); apart from those, 2 of deleted subscription wh_gone (the service cannot replay them)',
      found: {
        waiting: 1,
        waitingIsLowerBound: false,
        ofDeletedSubscriptions: [{ subscriptionId: 'wh_gone', count: 2, countIsLowerBound: false }],
        othersMayBeHidden: false,
      },
    });
  });

  it('a clock within 30 s is ok', async () => {
    const now = Date.parse('2026-11-22T14:05:00Z');
    const date = { date: new Date(now + 20_000).toUTCString() };
    server.queue(
      { headers: date, body: page([], null, 1) },
      {
        status: 403,
        headers: { ...date, 'content-type': 'application/problem+json' },
        body: { title: 'Insufficient scope', status: 403, code: 'INSUFFICIENT_SCOPE' },
      },
    );
    const { code, by } = await doctor([], { now, env: { RFS_API_KEY: 'service_pk_clockKEY_1234', RFS_BASE_URL: server.url } });
    expect(code).toBe(0);
    expect(by.clock).toMatchObject({ result: 'ok' });
    expect(by.clock?.detail).toMatch(/20 s ahead/);
  });

  it('an answer that is not JSON is a broken answer: exit 7', async () => {
    server.queue({ headers: { 'content-type': 'text/html' }, body: '<html>proxy login</html>' });
    const { code, by } = await doctor([], { env: { RFS_API_KEY: 'service_pk_clockKEY_1234', RFS_BASE_URL: server.url } });
    expect(code).toBe(7);
    expect(by['round-trip']?.result).toBe('fail');
  });
});

describe('rfs doctor without a service', () => {
  it('an unreachable port: the TCP check fails, exit 6, nothing retried or waited for', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const { code, by, waits } = await doctor([], {
      env: { RFS_API_KEY: 'service_pk_nobodyKEY_0000', RFS_BASE_URL: `http://127.0.0.1:${port}` },
    });
    expect(code).toBe(6);
    expect(by.tcp).toMatchObject({ result: 'fail' });
    expect(by.tcp?.detail).toMatch(/ECONNREFUSED/);
    for (const check of ['tls', 'round-trip', 'key', 'clock']) expect(by[check]?.result).toBe('skipped');
    expect(waits).toEqual([]);
  });

  it('plain http to a remote host is refused before anything is sent, exit 2', async () => {
    const { code, by } = await doctor([], { env: { RFS_API_KEY: 'service_pk_nobodyKEY_0000', RFS_BASE_URL: 'http://rfs.example.com' } });
    expect(code).toBe(2);
    expect(by['base-url']).toMatchObject({ result: 'fail' });
    expect(by.dns?.result).toBe('skipped');
  });

  it('a config folder that is a file is a local setup failure, exit 2', async () => {
    writeFileSync(join(dir, 'not-a-folder'), '');
    const { code, by } = await doctor([], { env: { RFS_CONFIG_DIR: join(dir, 'not-a-folder') } });
    expect(code).toBe(2);
    expect(by['config-file']?.detail).toMatch(/ENOTDIR/);
  });

  it('a damaged config file fails the first check and is left as it was', async () => {
    mkdirSync(configDir(), { recursive: true, mode: 0o700 });
    writeFileSync(join(configDir(), 'config.json'), '{ not json', { mode: 0o600 });
    const { code, by } = await doctor();
    expect(code).toBe(2);
    expect(by['config-file']?.detail).toMatch(/damaged/);
    expect(readFileSync(join(configDir(), 'config.json'), 'utf8')).toBe('{ not json');
    expect(existsSync(join(configDir(), 'config.json.lock'))).toBe(false);
  });
});
