// auth login/status/switch/logout through the whole CLI: a key read from stdin with
// --with-key, checked with one request before it is saved; status with a redacted key and the
// live answer; precedence of flag, environment and profile; 0600/0700 on disk.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { page, problem } from '../../helpers/fixtures.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO, type BufferIOOptions } from '../../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../../helpers/scenario-server.js';

let server: ScenarioServer;
let other: ScenarioServer;
let dir: string;
const KEY = 'service_pk_loginKEYabcdef_7777';
const KEY2 = 'service_pk_secondKEYxyz_8888';

beforeEach(async () => {
  server = await startScenarioServer();
  other = await startScenarioServer();
  dir = mkdtempSync(join(tmpdir(), 'rfs-auth-'));
});
afterEach(async () => {
  server.verify();
  other.verify();
  await server.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(argv: string[], o: BufferIOOptions = {}) {
  const t = bufferIO({ ...o, env: { RFS_CONFIG_DIR: join(dir, 'config'), ...o.env } });
  return { t, run: () => runCli(argv, t.io, { clock: fakeTime().clock }) };
}
const ok = () => ({ body: page([], null, 1) });

async function login(profile: string, key: string, base: string): Promise<number> {
  return cli(['auth', 'login', '--with-key', '--profile', profile, '--base-url', base], { stdin: `${key}\n` }).run();
}

describe('auth login', () => {
  it('reads the key from stdin, checks it once, saves it 0600 in a 0700 folder, and prints it redacted', async () => {
    server.queue(ok());
    const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', server.url, '-o', 'json'], { stdin: `${KEY}\n` });
    expect(await run()).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.url).toBe('/api/v1/recordings?limit=1');
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(t.stdout())).toEqual({
      profile: 'default',
      baseUrl: server.url,
      key: 'service_pk_…7777',
      default: true,
      check: 'ok',
    });
    expect(t.stdout() + t.stderr()).not.toContain(KEY);
    const file = join(dir, 'config', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'config')).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toContain(KEY);
  });

  it('refuses to save a key the server answers 401 for, exit 3', async () => {
    server.queue(problem(401, 'UNAUTHORIZED', 'Invalid key'));
    const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', server.url], { stdin: KEY });
    expect(await run()).toBe(3);
    expect(t.stderr()).toMatch(/nothing was saved/);
    const status = cli(['auth', 'status']);
    expect(await status.run()).toBe(3);
  });

  it('saves a key without read:recordings with a note, and one without a plan with a warning', async () => {
    // Refused GET /recordings for its scope, login asks GET /webhooks too (one
    // verdict with auth status); refused there as well, the key is saved with the note.
    server.queue(
      problem(403, 'INSUFFICIENT_SCOPE', 'Insufficient scope'),
      problem(403, 'INSUFFICIENT_SCOPE', 'Insufficient scope'),
      problem(403, 'SUBSCRIPTION_REQUIRED', 'Subscription required'),
    );
    const a = cli(['auth', 'login', '--with-key', '--profile', 'writer', '--base-url', server.url], { stdin: KEY });
    expect(await a.run()).toBe(0);
    expect(a.t.stderr()).toMatch(/cannot read recordings/);
    const b = cli(['auth', 'login', '--with-key', '--profile', 'starter', '--base-url', server.url], { stdin: KEY2 });
    expect(await b.run()).toBe(0);
    expect(b.t.stderr()).toMatch(/warning: .*SUBSCRIPTION_REQUIRED/);
  });

  it('refuses a malformed key locally with exit 2 and sends nothing', async () => {
    const { t, run } = cli(['auth', 'login', '--with-key', '--base-url', server.url], { stdin: 'sk_live_nope' });
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/service_pk_/);
    expect(server.requests).toHaveLength(0);
  });

  it('without a terminal and without --with-key, exits 2 naming --with-key', async () => {
    const { t, run } = cli(['auth', 'login', '--base-url', server.url]);
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/--with-key/);
  });
});

describe('profiles', () => {
  it('makes the first profile saved the default, switches, and logs out', async () => {
    server.queue(ok(), ok());
    expect(await login('one', KEY, server.url)).toBe(0);
    expect(await login('two', KEY2, server.url)).toBe(0);
    // auth status learns each profile's scopes from two GETs: recordings, then webhooks.
    server.queue(ok(), ok(), ok(), ok());
    const s = cli(['auth', 'status', '-o', 'json']);
    expect(await s.run()).toBe(0);
    const rows = JSON.parse(s.t.stdout()) as { profile: string; default: boolean; key: string; status: string; scopes: string[] }[];
    expect(rows.map((r) => [r.profile, r.default, r.key, r.status, r.scopes])).toEqual([
      ['one', true, 'service_pk_…7777', 'ok', ['read:recordings', 'manage:webhooks']],
      ['two', false, 'service_pk_…8888', 'ok', ['read:recordings', 'manage:webhooks']],
    ]);
    expect(s.t.stdout()).not.toContain(KEY);

    expect(await cli(['auth', 'switch', 'two']).run()).toBe(0);
    server.queue(ok());
    const list = cli(['recordings', 'list']);
    expect(await list.run()).toBe(0);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY2}`);

    // cli.md, auth: logout asks first; without a terminal --yes answers (the prompt rule).
    expect(await cli(['auth', 'logout', '--profile', 'one', '--yes']).run()).toBe(0);
    const missing = cli(['recordings', 'list', '--profile', 'one']);
    expect(await missing.run()).toBe(2);
    expect(missing.t.stderr()).toMatch(/no profile named "one"/);
  });

  it('takes each value from the flag, then the environment, then the profile', async () => {
    server.queue(ok());
    expect(await login('main', KEY, server.url)).toBe(0);

    // Profile only.
    server.queue(ok());
    expect(await cli(['recordings', 'list']).run()).toBe(0);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);

    // Environment over profile: key and base URL.
    other.queue(ok());
    expect(await cli(['recordings', 'list'], { env: { RFS_API_KEY: KEY2, RFS_BASE_URL: other.url } }).run()).toBe(0);
    expect(other.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY2}`);

    // Flag over environment: base URL.
    server.queue(ok());
    expect(await cli(['recordings', 'list', '--base-url', server.url], { env: { RFS_BASE_URL: other.url } }).run()).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(other.requests).toHaveLength(1);

    // --profile over RFS_PROFILE.
    const wrong = cli(['recordings', 'list', '--profile', 'main'], { env: { RFS_PROFILE: 'absent' } });
    server.queue(ok());
    expect(await wrong.run()).toBe(0);
    const absent = cli(['recordings', 'list'], { env: { RFS_PROFILE: 'absent' } });
    expect(await absent.run()).toBe(2);
  });

  // cli.md: the profile is --profile, then RFS_PROFILE, then the default. An empty RFS_PROFILE is
  // unset, as every other empty variable is: recordings list always read it so; auth login,
  // status and logout took "" for a profile name (exit 2, exit 3, exit 2).
  const empty = { RFS_PROFILE: '' };

  it('reads an empty RFS_PROFILE as unset in auth login', async () => {
    server.queue(ok());
    const a = cli(['auth', 'login', '--with-key', '--base-url', server.url, '-o', 'json'], { stdin: KEY, env: empty });
    expect(await a.run()).toBe(0);
    expect(JSON.parse(a.t.stdout())).toMatchObject({ profile: 'default', default: true });
    server.queue(ok());
    expect(await cli(['recordings', 'list'], { env: empty }).run()).toBe(0);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('reads an empty RFS_PROFILE as unset in auth status', async () => {
    server.queue(ok());
    expect(await login('main', KEY, server.url)).toBe(0);
    server.queue(ok(), ok());
    const s = cli(['auth', 'status', '-o', 'json'], { env: empty });
    expect(await s.run()).toBe(0);
    expect(JSON.parse(s.t.stdout())).toMatchObject([{ profile: 'main', selected: true, status: 'ok' }]);
  });

  it('reads an empty RFS_PROFILE as unset in auth logout', async () => {
    server.queue(ok());
    expect(await login('main', KEY, server.url)).toBe(0);
    const out = cli(['auth', 'logout', '--yes'], { env: empty });
    expect(await out.run()).toBe(0);
    expect(out.t.stderr()).toMatch(/Removed profile "main"/);
    expect(readFileSync(join(dir, 'config', 'config.json'), 'utf8')).not.toContain(KEY);
  });

  it('reads an empty RFS_BASE_URL as unset in auth login', async () => {
    server.queue(ok());
    const a = cli(['auth', 'login', '--with-key', '--profile', 'p', '--base-url', server.url], { stdin: KEY });
    expect(await a.run()).toBe(0);
    server.queue(ok());
    const again = cli(['auth', 'login', '--with-key', '--profile', 'p', '-o', 'json'], { stdin: KEY, env: { RFS_BASE_URL: '' } });
    expect(await again.run()).toBe(0);
    expect(JSON.parse(again.t.stdout())).toMatchObject({ profile: 'p', baseUrl: server.url });
  });

  it('shows the environment key first in status, redacted, and exits 3 when the selected one fails', async () => {
    server.queue(problem(401, 'UNAUTHORIZED', 'Invalid key'));
    const { t, run } = cli(['auth', 'status', '-o', 'json'], { env: { RFS_API_KEY: KEY, RFS_BASE_URL: server.url } });
    expect(await run()).toBe(3);
    const rows = JSON.parse(t.stdout()) as { key: string; source: string; status: string }[];
    expect(rows[0]).toMatchObject({ key: 'service_pk_…7777', source: 'environment', status: 'unauthorized' });
    expect(t.stdout() + t.stderr()).not.toContain(KEY);
  });
});

// A config file edited by hand: the schema takes any non-empty key and base URL, so the rules of
// what a key and a base URL must look like meet them only when they are used.
describe('a hand-edited profile', () => {
  const said = 'invalid base-url of profile "far": refusing plain http to rfs.example.com';
  const fix = 'fix it with `rfs config set base-url <value>` or `rfs config unset base-url`';

  function writeConfig(defaultProfile: string, profiles: Record<string, Record<string, string>>): void {
    mkdirSync(join(dir, 'config'), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ defaultProfile, profiles }), { mode: 0o600 });
  }

  it('auth status: a badly shaped saved key is its row\'s "invalid key", the others are listed, exit 3', async () => {
    writeConfig('bad', { bad: { baseUrl: server.url, apiKey: 'sk_live_nope' }, good: { baseUrl: server.url, apiKey: KEY } });
    server.queue(ok(), ok());
    const s = cli(['auth', 'status', '-o', 'json']);
    expect(await s.run()).toBe(3);
    const rows = JSON.parse(s.t.stdout()) as { profile: string; selected: boolean; status: string }[];
    expect(rows.map((r) => [r.profile, r.selected, r.status])).toEqual([
      ['bad', true, 'invalid key'],
      ['good', false, 'ok'],
    ]);
    expect(s.t.stdout() + s.t.stderr()).not.toContain('sk_live_nope');
  });

  it("auth status: a bad stored base-url of another profile is that row's problem, in the settings rule's words", async () => {
    writeConfig('good', { far: { baseUrl: 'http://rfs.example.com', apiKey: KEY2 }, good: { baseUrl: server.url, apiKey: KEY } });
    server.queue(ok(), ok());
    const s = cli(['auth', 'status', '-o', 'json']);
    expect(await s.run()).toBe(0);
    const rows = JSON.parse(s.t.stdout()) as { profile: string; baseUrl: string; status: string }[];
    expect(rows.map((r) => [r.profile, r.baseUrl, r.status])).toEqual([
      ['far', 'http://rfs.example.com', 'invalid base-url'],
      ['good', server.url, 'ok'],
    ]);
    expect(s.t.stderr()).toContain(said);
    expect(s.t.stderr()).toContain(fix);
  });

  it('auth login --with-key refuses a bad stored base-url in the words every command uses, sending nothing', async () => {
    writeConfig('far', { far: { baseUrl: 'http://rfs.example.com', rate: '60' } });
    const a = cli(['auth', 'login', '--with-key'], { stdin: KEY });
    expect(await a.run()).toBe(2);
    expect(a.t.stderr()).toContain(said);
    expect(a.t.stderr()).toContain(fix);
    // The flag still wins over the stored value.
    server.queue(ok());
    const b = cli(['auth', 'login', '--with-key', '--base-url', server.url, '-o', 'json'], { stdin: KEY });
    expect(await b.run()).toBe(0);
    expect(JSON.parse(b.t.stdout())).toMatchObject({ profile: 'far', baseUrl: server.url, check: 'ok' });
    expect(server.requests).toHaveLength(1);
  });
});
