// what auth must do now (cli.md, auth): connection checks fail fast, scopes
// are learned from GETs only, one explained default marker, logout asks, a replaced key is
// said, an empty --with-key says no key was given, switch without a name needs a terminal.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { page, problem } from '../../helpers/fixtures.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO, type BufferIOOptions } from '../../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../../helpers/scenario-server.js';

let server: ScenarioServer;
let dir: string;
const KEY = 'service_pk_loginKEYabcdef_7777';
const KEY2 = 'service_pk_secondKEYxyz_8888';

beforeEach(async () => {
  server = await startScenarioServer();
  dir = mkdtempSync(join(tmpdir(), 'rfs-auth12-'));
});
afterEach(async () => {
  server.verify();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(argv: string[], o: BufferIOOptions = {}) {
  const t = bufferIO({ ...o, env: { RFS_CONFIG_DIR: join(dir, 'config'), ...o.env } });
  return { t, run: () => runCli(argv, t.io, { clock: fakeTime().clock }) };
}
const ok = () => ({ body: page([], null, 1) });
const configText = () => readFileSync(join(dir, 'config', 'config.json'), 'utf8');

async function login(profile: string, key: string): Promise<void> {
  server.queue(ok());
  const code = await cli(['auth', 'login', '--with-key', '--profile', profile, '--base-url', server.url], { stdin: key }).run();
  expect(code).toBe(0);
}

/** A base URL where nothing listens: a server started and closed again. */
async function deadUrl(): Promise<string> {
  const gone = await startScenarioServer();
  await gone.close();
  return gone.url;
}

describe('connection checks fail fast', () => {
  it('auth login to a refused connection makes one attempt and exits 6, saving nothing', async () => {
    const url = await deadUrl();
    const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', url, '-v'], { stdin: KEY });
    expect(await run()).toBe(6);
    expect(t.stderr().match(/ · attempt \d+\/\d+/g)).toEqual([' · attempt 1/1']);
    expect(t.stderr()).not.toMatch(/retrying/);
    expect(() => configText()).toThrow();
  });

  it('auth status against a refused connection makes one attempt and exits 6', async () => {
    const url = await deadUrl();
    const { t, run } = cli(['auth', 'status', '-v', '-o', 'json'], { env: { RFS_API_KEY: KEY, RFS_BASE_URL: url } });
    expect(await run()).toBe(6);
    expect(t.stderr().match(/ · attempt \d+\/\d+/g)).toEqual([' · attempt 1/1']);
    expect(JSON.parse(t.stdout())).toMatchObject([{ status: 'unreachable', scopes: [] }]);
  });
});

describe('auth status scopes', () => {
  it('shows a webhooks-only key as ok with manage:webhooks, exit 0', async () => {
    await login('hooks', KEY);
    server.queue(problem(403, 'INSUFFICIENT_SCOPE', 'Key lacks required scope'), ok());
    const { t, run } = cli(['auth', 'status', '-o', 'json']);
    expect(await run()).toBe(0);
    expect(server.requests.slice(-2).map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/v1/recordings?limit=1',
      'GET /api/v1/webhooks?limit=1',
    ]);
    expect(JSON.parse(t.stdout())).toMatchObject([{ profile: 'hooks', status: 'ok', scopes: ['manage:webhooks'] }]);
  });

  it('shows a read-only key as ok with read:recordings only', async () => {
    await login('ro', KEY);
    server.queue(ok(), problem(403, 'INSUFFICIENT_SCOPE', 'Key lacks required scope'));
    const { t, run } = cli(['auth', 'status', '-o', 'json']);
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toMatchObject([{ status: 'ok', scopes: ['read:recordings'] }]);
  });

  it('is missing scope (exit 3) only when no GET proves any scope', async () => {
    await login('wo', KEY);
    server.queue(problem(403, 'INSUFFICIENT_SCOPE', 'no'), problem(403, 'INSUFFICIENT_SCOPE', 'no'));
    const { t, run } = cli(['auth', 'status', '-o', 'json']);
    expect(await run()).toBe(3);
    expect(JSON.parse(t.stdout())).toMatchObject([{ status: 'missing scope', scopes: [] }]);
  });

  it('shows the scopes in the table', async () => {
    await login('hooks', KEY);
    server.queue(problem(403, 'INSUFFICIENT_SCOPE', 'no'), ok());
    const { t, run } = cli(['auth', 'status', '-o', 'table'], { columns: 200 });
    expect(await run()).toBe(0);
    expect(t.stdout()).toMatch(/SCOPES/);
    expect(t.stdout()).toMatch(/manage:webhooks\s+ok/);
  });
});

describe('auth status default marker', () => {
  it('marks one default, never the RFS_API_KEY row, and says where the key in use comes from', async () => {
    await login('main', KEY);
    server.queue(ok(), ok(), ok(), ok());
    const { t, run } = cli(['auth', 'status', '-o', 'json'], { env: { RFS_API_KEY: KEY2 } });
    expect(await run()).toBe(0);
    const rows = JSON.parse(t.stdout()) as { profile: string; default: boolean; selected: boolean; source: string }[];
    expect(rows.map((r) => [r.profile, r.default, r.selected, r.source])).toEqual([
      ['main', false, true, 'environment'],
      ['main', true, false, 'profile'],
    ]);
  });

  it('explains DEFAULT and IN USE under the table, on stderr', async () => {
    await login('main', KEY);
    server.queue(ok(), ok(), ok(), ok());
    const { t, run } = cli(['auth', 'status', '-o', 'table'], { env: { RFS_API_KEY: KEY2 }, columns: 200 });
    expect(await run()).toBe(0);
    const lines = t.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PROFILE\s+DEFAULT\s+IN USE\s+BASE URL\s+KEY\s+SCOPES\s+STATUS$/);
    const header = lines[0] ?? '';
    const cell = (line: string, from: string, to: string) => line.slice(header.indexOf(from), header.indexOf(to)).trim();
    // The key of RFS_API_KEY is the variable's row, never a second `main`.
    expect(lines.slice(1).map((l) => [cell(l, 'PROFILE', 'DEFAULT'), cell(l, 'DEFAULT', 'IN USE'), cell(l, 'IN USE', 'BASE URL')])).toEqual(
      [
        ['RFS_API_KEY', '', 'yes'],
        ['main', 'yes', ''],
      ],
    );
    expect(t.stdout()).not.toMatch(/\*/);
    expect(t.stderr()).toMatch(/DEFAULT: the profile used when neither --profile nor RFS_PROFILE names one/);
    expect(t.stderr()).toMatch(/RFS_API_KEY overrides every saved key/);
  });
});

describe('auth login: one verdict with auth status, and --timeout honoured', () => {
  it('saves a webhooks-only key as ok, with the note that it cannot read recordings, as auth status says', async () => {
    server.queue(
      { ...problem(403, 'INSUFFICIENT_SCOPE', 'Insufficient scope'), expect: { url: '/api/v1/recordings?limit=1' } },
      { expect: { url: '/api/v1/webhooks?limit=1' }, body: page([], null, 1) },
    );
    const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', server.url, '-o', 'json'], { stdin: KEY });
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toMatchObject({ check: 'ok' });
    expect(t.stderr()).toContain('note: this key cannot read recordings (it lacks read:recordings); saved anyway');
    server.queue(
      { ...problem(403, 'INSUFFICIENT_SCOPE', 'Insufficient scope'), expect: { url: '/api/v1/recordings?limit=1' } },
      { expect: { url: '/api/v1/webhooks?limit=1' }, body: page([], null, 1) },
    );
    const status = cli(['auth', 'status', '-o', 'json']);
    expect(await status.run()).toBe(0);
    expect(JSON.parse(status.t.stdout())).toMatchObject([{ status: 'ok', scopes: ['manage:webhooks'] }]);
  });

  it("waits as long as --timeout says, past the checks' 10 s, for a service that never answers", { timeout: 30_000 }, async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent = (await import('node:net')).createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as import('node:net').AddressInfo;
    try {
      const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', `http://127.0.0.1:${port}`, '--timeout', '10.5'], {
        stdin: KEY,
      });
      expect(await run()).toBe(6);
      expect(t.stderr()).toContain('within 10.5 s');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('auth status: which rows', () => {
  it('a profile named by --profile or by RFS_PROFILE shows its row alone: one rule', async () => {
    await login('main', KEY);
    await login('hooks', KEY2);
    const rowsOf = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      server.queue(ok(), ok());
      const { t, run } = cli(['auth', 'status', ...argv, '-o', 'json'], { env });
      expect(await run()).toBe(0);
      return (JSON.parse(t.stdout()) as { profile: string; selected: boolean }[]).map((r) => [r.profile, r.selected]);
    };
    const byFlag = await rowsOf(['-p', 'hooks']);
    expect(byFlag).toEqual([['hooks', true]]);
    expect(await rowsOf([], { RFS_PROFILE: 'hooks' })).toEqual(byFlag);
  });
});

describe('auth logout asks first', () => {
  it('without a terminal and without --yes exits 2 naming --yes, and keeps the profile', async () => {
    await login('main', KEY);
    const { t, run } = cli(['auth', 'logout']);
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/--yes/);
    expect(configText()).toContain(KEY);
  });

  it('with --yes removes it', async () => {
    await login('main', KEY);
    expect(await cli(['auth', 'logout', '--yes']).run()).toBe(0);
    expect(configText()).not.toContain(KEY);
  });
});

describe('auth login', () => {
  it('replacing a saved key without a terminal replaces it and says so on stderr', async () => {
    await login('ro', KEY);
    server.queue(ok());
    const { t, run } = cli(['auth', 'login', '--with-key', '--profile', 'ro'], { stdin: KEY2 });
    expect(await run()).toBe(0);
    expect(t.stderr()).toContain('Replaced the key of profile "ro" (was service_pk_…7777).');
    expect(configText()).toContain(KEY2);
  });

  it('--with-key with empty stdin says that no key was given, exit 2, nothing sent', async () => {
    const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', server.url], { stdin: '' });
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/no key was given/);
    expect(t.stderr()).not.toMatch(/not an API key/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('auth switch without a name', () => {
  it('without a terminal exits 2 and names the saved profiles and the argument', async () => {
    await login('one', KEY);
    await login('two', KEY2);
    const { t, run } = cli(['auth', 'switch']);
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/rfs auth switch <name> \(saved: one, two\)/);
  });
});
