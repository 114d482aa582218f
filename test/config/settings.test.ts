// rfs config list|get|set|unset (cli.md, config): every setting by the one precedence rule —
// flag, then environment, then profile, then default — and the profile's values actually used
// by the commands (retries, output, the service root, file's provider).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { declareGlobals, resolveGlobals } from '../../src/cli/globals.js';
import { SETTINGS, flagMember } from '../../src/config/settings.js';
import { runCli } from '../../src/cli/run.js';
import { fakeTime } from '../helpers/clock.js';
import { page, problem, recording } from '../helpers/fixtures.js';
import { bufferIO, type BufferIOOptions } from '../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

const KEY = 'service_pk_settingsKEY_4242';
let dir: string;
let server: ScenarioServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-settings-'));
  server = await startScenarioServer();
});
afterEach(async () => {
  server.verify();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const configFile = () => join(dir, 'config', 'config.json');

function cli(argv: string[], o: BufferIOOptions = {}) {
  const t = bufferIO({ ...o, env: { RFS_CONFIG_DIR: join(dir, 'config'), XDG_STATE_HOME: join(dir, 'state'), ...o.env } });
  return { t, run: () => runCli(argv, t.io, { clock: fakeTime().clock }) };
}

async function ok(argv: string[], o: BufferIOOptions = {}) {
  const c = cli(argv, o);
  const code = await c.run();
  expect(code, c.t.stderr()).toBe(0);
  return c.t;
}

/** A saved profile, as `auth login` writes it, with settings beside the key. */
function saveProfile(name: string, members: Record<string, unknown>, isDefault = true): void {
  let stored: { defaultProfile?: string; profiles: Record<string, unknown> } = { profiles: {} };
  try {
    stored = JSON.parse(readFileSync(configFile(), 'utf8'));
  } catch {
    // first profile
  }
  stored.profiles[name] = { baseUrl: server.url, apiKey: KEY, ...members };
  if (isDefault) stored.defaultProfile = name;
  rmSync(join(dir, 'config'), { recursive: true, force: true });
  mkdirSync(join(dir, 'config'), { recursive: true, mode: 0o700 });
  writeFileSync(configFile(), JSON.stringify(stored), { mode: 0o600 });
}

async function listed(argv: string[] = [], o: BufferIOOptions = {}): Promise<Record<string, { value: unknown; source: string }>> {
  const t = await ok(['config', 'list', '-o', 'json', ...argv], o);
  const rows = JSON.parse(t.stdout()) as { key: string; value: unknown; source: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source }]));
}

describe("a global setting's flag, declared once by its entry in SETTINGS", () => {
  const program = declareGlobals(new Command());
  const declared = SETTINGS.filter((s) => 'option' in s);

  it("is on the program as declared, its default the setting's, and parsed into the member the rule reads", () => {
    expect(declared.map((s) => s.key)).toEqual(['base-url', 'output', 'rate', 'timeout', 'max-retries']);
    for (const setting of declared) {
      const { option } = setting;
      const flags = ['shorthand' in option ? [option, option.shorthand] : [option]].flat();
      for (const { flags: usage, help } of flags) {
        const made = program.options.filter((o) => o.flags === usage);
        expect(
          made.map((o) => o.description),
          usage,
        ).toEqual([help]);
        expect(made[0]?.attributeName(), usage).toBe(flagMember(usage));
      }
      const made = program.options.find((o) => o.flags === option.flags);
      const fallback = setting.fallback(false);
      // Commander shows a number setting's default; the others' depend on the run (the terminal, the profile).
      expect(made?.defaultValue, setting.key).toBe(typeof fallback === 'number' ? String(fallback) : undefined);
    }
  });

  it('is named by the setting: its long name is the key rfs config takes', () => {
    for (const setting of declared) expect(setting.option.flags, setting.key).toMatch(new RegExp(`(^|, )--${setting.key} `));
  });

  it('gives the value read under its flag, and a parsed command line reaches the rule', () => {
    const io = bufferIO({ env: {} }).io;
    const parsed = declareGlobals(new Command())
      .exitOverride()
      .parse(['--base-url', 'https://flag.example.com', '-o', 'NDJSON', '--rate', '7', '--timeout', '3', '--max-retries', '0'], {
        from: 'user',
      })
      .opts();
    expect(resolveGlobals(parsed, io)).toMatchObject({ output: 'ndjson', rate: 7, timeoutSeconds: 3, maxRetries: 0 });
    const json = declareGlobals(new Command()).exitOverride().parse(['--json'], { from: 'user' }).opts();
    expect(resolveGlobals(json, bufferIO({ stdoutIsTTY: true }).io).output).toBe('json');
  });
});

describe('precedence: flag, then environment, then profile, then default', () => {
  it('lists every setting from its default when nothing gives one', async () => {
    expect(await listed()).toEqual({
      'base-url': { value: 'http://127.0.0.1:4010', source: 'default' },
      // -o json, which lists them as JSON, is itself the output flag.
      output: { value: 'json', source: 'flag' },
      rate: { value: 120, source: 'default' },
      timeout: { value: 30, source: 'default' },
      'max-retries': { value: 5, source: 'default' },
      provider: { value: null, source: 'default' },
    });
    expect(JSON.parse((await ok(['config', 'get', 'output', '-o', 'ndjson'])).stdout())).toEqual({
      key: 'output',
      value: 'ndjson',
      source: 'flag',
    });
    // Not a terminal: json by default; plain text, as `gh config get` prints it.
    expect((await ok(['config', 'get', 'output'])).stdout()).toBe('json\n');
    expect((await ok(['config', 'get', 'output'], { stdoutIsTTY: true })).stdout()).toBe('table\n');
    expect((await ok(['config', 'get', 'provider'])).stdout()).toBe('');
    // --jq filters the setting as JSON, as it does every command's output.
    expect((await ok(['config', 'get', 'rate', '--jq', '.source'])).stdout()).toBe('default\n');
  });

  it('takes every setting from the profile over the default', async () => {
    await ok(['config', 'set', 'base-url', 'https://rfs.example.com']);
    await ok(['config', 'set', 'output', 'NDJSON']);
    await ok(['config', 'set', 'rate', '60']);
    await ok(['config', 'set', 'timeout', '2.5']);
    await ok(['config', 'set', 'max-retries', '0']);
    await ok(['config', 'set', 'provider', 'crm']);
    // -o json is a flag: list the rest of them as the profile gives them.
    const rows = await listed();
    expect(rows).toMatchObject({
      'base-url': { value: 'https://rfs.example.com', source: 'profile' },
      rate: { value: 60, source: 'profile' },
      timeout: { value: 2.5, source: 'profile' },
      'max-retries': { value: 0, source: 'profile' },
      provider: { value: 'crm', source: 'profile' },
    });
    expect((await ok(['config', 'get', 'output'])).stdout()).toBe('ndjson\n');
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default).toEqual({
      baseUrl: 'https://rfs.example.com',
      output: 'ndjson',
      rate: 60,
      timeout: 2.5,
      maxRetries: 0,
      provider: 'crm',
    });
  });

  it('takes the environment over the profile, and a flag over both', async () => {
    saveProfile('work', { baseUrl: 'https://profile.example.com', output: 'table', rate: 30, timeout: 9, maxRetries: 1 });
    const env = { RFS_BASE_URL: 'https://env.example.com' };
    expect((await listed([], { env }))['base-url']).toEqual({ value: 'https://env.example.com', source: 'environment' });
    const flagged = await listed(['--base-url', 'https://flag.example.com', '--rate', '10', '--timeout', '4', '--max-retries', '3'], {
      env,
    });
    expect(flagged).toMatchObject({
      'base-url': { value: 'https://flag.example.com', source: 'flag' },
      output: { value: 'json', source: 'flag' },
      rate: { value: 10, source: 'flag' },
      timeout: { value: 4, source: 'flag' },
      'max-retries': { value: 3, source: 'flag' },
    });
    // Without the flags the profile's values stand.
    const get = async (key: string) => JSON.parse((await ok(['config', 'get', key, '--json'])).stdout());
    expect(await get('output')).toEqual({ key: 'output', value: 'json', source: 'flag' });
    expect((await ok(['config', 'get', 'output'])).stdout()).toBe('table\n');
    expect(await get('rate')).toEqual({ key: 'rate', value: 30, source: 'profile' });
    expect(await get('timeout')).toEqual({ key: 'timeout', value: 9, source: 'profile' });
    expect(await get('max-retries')).toEqual({ key: 'max-retries', value: 1, source: 'profile' });
    expect(await get('base-url')).toEqual({ key: 'base-url', value: 'https://profile.example.com', source: 'profile' });
  });

  it('resolves the global options by the same rule for every setting', () => {
    const io = bufferIO({ env: {} }).io;
    const profile = { name: 'p', stored: { output: 'ndjson', rate: 30, timeout: 9, maxRetries: 1, provider: 'crm' } };
    expect(resolveGlobals({}, io)).toMatchObject({ output: 'json', rate: 120, timeoutSeconds: 30, maxRetries: 5, provider: undefined });
    expect(resolveGlobals({}, bufferIO({ stdoutIsTTY: true }).io)).toMatchObject({ output: 'table' });
    expect(resolveGlobals({}, io, profile)).toMatchObject({
      output: 'ndjson',
      rate: 30,
      timeoutSeconds: 9,
      maxRetries: 1,
      provider: 'crm',
    });
    expect(resolveGlobals({ output: 'table', rate: '5', timeout: '1', maxRetries: '2' }, io, profile)).toMatchObject({
      output: 'table',
      rate: 5,
      timeoutSeconds: 1,
      maxRetries: 2,
    });
    expect(resolveGlobals({ json: true }, io, profile).output).toBe('json');
  });

  it('chooses the profile by --profile, then RFS_PROFILE, then the default one', async () => {
    saveProfile('a', { rate: 11 });
    saveProfile('b', { rate: 22 }, false);
    expect((await ok(['config', 'get', 'rate'])).stdout()).toBe('11\n');
    expect((await ok(['config', 'get', 'rate'], { env: { RFS_PROFILE: 'b' } })).stdout()).toBe('22\n');
    expect((await ok(['config', 'get', 'rate', '--profile', 'a'], { env: { RFS_PROFILE: 'b' } })).stdout()).toBe('11\n');
    const missing = cli(['config', 'list', '--profile', 'nope']);
    expect(await missing.run()).toBe(2);
    expect(missing.t.stderr()).toMatch(/no profile named "nope"/);
  });
});

describe('the profile settings are used', () => {
  it('max-retries: 0 from the profile sends one attempt; the flag still wins', async () => {
    saveProfile('default', { maxRetries: 0 });
    server.queue(problem(503, 'SERVICE_UNAVAILABLE', 'Down'));
    const once = cli(['recordings', 'list']);
    expect(await once.run()).toBe(6);
    expect(server.requests).toHaveLength(1);
    server.queue(problem(503, 'SERVICE_UNAVAILABLE', 'Down'), { body: page([], null) });
    expect(await cli(['recordings', 'list', '--max-retries', '1']).run()).toBe(0);
    expect(server.requests).toHaveLength(3);
  });

  it('output: the profile format when no -o is given, -o over it', async () => {
    saveProfile('default', { output: 'ndjson' });
    server.queue({ body: page([recording(1), recording(2)], null) }, { body: page([recording(1)], null) });
    const t = await ok(['recordings', 'list']);
    expect(
      t
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['rec_0001', 'rec_0002']);
    const j = await ok(['recordings', 'list', '--json']);
    expect(JSON.parse(j.stdout())).toHaveLength(1);
  });

  it('timeout: the profile value bounds each attempt', async () => {
    saveProfile('default', { timeout: 0.05, maxRetries: 0 });
    server.queue({ body: page([], null), delayMs: 1000 });
    const c = cli(['recordings', 'list']);
    expect(await c.run()).toBe(6);
    expect(c.t.stderr()).toMatch(/time/i);
  });

  it('provider: file takes the profile default, and --provider over it', async () => {
    saveProfile('default', { provider: 'crm' });
    const filed = (provider: string) => ({
      body: {
        data: {
          id: 'rec_1',
          lastSyncedAt: '2026-11-22T14:00:00.000Z',
          syncCount: 1,
          syncMetadata: { provider, externalId: 'X', filedAt: '2026-11-22T14:00:00.000Z' },
        },
        meta: { replayed: false },
      },
    });
    server.queue(filed('crm'), filed('erp'));
    await ok(['file', 'rec_1', '--external-id', 'X']);
    await ok(['file', 'rec_1', '--external-id', 'X', '--provider', 'erp']);
    expect(server.requests.map((r) => JSON.parse(r.body).provider)).toEqual(['crm', 'erp']);
  });

  it('a value in the profile that its flag would refuse is ignored with a warning, and config still runs', async () => {
    saveProfile('default', { rate: 'fast' });
    const t = await ok(['config', 'get', 'rate', '--json']);
    expect(JSON.parse(t.stdout())).toEqual({ key: 'rate', value: 120, source: 'default' });
    expect(t.stderr()).toMatch(/warning: invalid rate of profile "default" "fast".*rfs config unset rate/);
    await ok(['config', 'unset', 'rate']);
    expect((await ok(['config', 'get', 'rate'])).stderr()).toBe('');
  });

  it('a base-url in the profile that its flag would refuse: config shows it as stored and says so, commands refuse it in the same words', async () => {
    saveProfile('default', { baseUrl: 'http://rfs.example.com' });
    const said = 'invalid base-url of profile "default": refusing plain http to rfs.example.com';
    const fix = 'fix it with `rfs config set base-url <value>` or `rfs config unset base-url`';
    const get = await ok(['config', 'get', 'base-url', '--json']);
    expect(JSON.parse(get.stdout())).toEqual({ key: 'base-url', value: 'http://rfs.example.com', source: 'profile' });
    expect(get.stderr()).toContain(said);
    expect(get.stderr()).toContain(fix);
    const list = await ok(['config', 'list', '-o', 'json']);
    expect(JSON.parse(list.stdout())[0]).toEqual({ key: 'base-url', value: 'http://rfs.example.com', source: 'profile' });
    expect(list.stderr()).toContain(said);
    const command = cli(['recordings', 'list']);
    expect(await command.run()).toBe(2);
    expect(command.t.stderr()).toContain(said);
    expect(command.t.stderr()).toContain(fix);
    const status = cli(['auth', 'status']);
    expect(await status.run()).toBe(2);
    expect(status.t.stderr()).toContain(said);
    // The flag still wins over the stored value, for config and for commands alike.
    server.queue({ body: page([], null) });
    await ok(['recordings', 'list', '--base-url', server.url]);
    expect((await ok(['config', 'get', 'base-url', '--base-url', server.url])).stdout()).toBe(`${server.url}\n`);
  });
});

describe('config set / unset', () => {
  it.each([
    ['rate', 'fast', /invalid rate "fast": expected a number from 0 to 1000000/],
    ['rate', '-1', /from 0 to 1000000/],
    ['timeout', '0', /invalid timeout "0": expected a number from 0.001 to 3600/],
    ['max-retries', '1.5', /invalid max-retries "1.5": expected a whole number from 0 to 100/],
    ['output', 'xml', /expected one of table, json, ndjson/],
    ['base-url', 'http://rfs.example.com', /refusing plain http/],
    ['base-url', 'not a url', /invalid base URL/],
    ['provider', '  ', /must not be blank/],
    ['colour', 'red', /unknown setting "colour"/],
  ])('refuses %s %j with exit 2, and writes nothing', async (key, value, message) => {
    const c = cli(['config', 'set', key, value]);
    expect(await c.run()).toBe(2);
    expect(c.t.stderr()).toMatch(message);
    expect(() => statSync(configFile())).toThrow();
  });

  it.each(['apiKey', 'api-key', 'API_KEY'])('refuses the key as a setting (%s) and never echoes the value', async (key) => {
    const c = cli(['config', 'set', key, KEY]);
    expect(await c.run()).toBe(2);
    expect(c.t.stderr()).toMatch(/not a setting.*rfs auth login/);
    expect(c.t.stderr()).not.toContain(KEY);
    const g = cli(['config', 'get', key]);
    expect(await g.run()).toBe(2);
  });

  it('saves 0600 beside the key, leaves the key alone, and unset brings the default back', async () => {
    saveProfile('default', {});
    await ok(['config', 'set', 'maxRetries', '2']);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default).toEqual({ baseUrl: server.url, apiKey: KEY, maxRetries: 2 });
    const u = await ok(['config', 'unset', 'max-retries']);
    expect(u.stderr()).toMatch(/no longer set/);
    expect(await listed()).toMatchObject({ 'max-retries': { value: 5, source: 'default' } });
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default).toEqual({ baseUrl: server.url, apiKey: KEY });
    expect((await ok(['config', 'unset', 'max-retries'])).stderr()).toMatch(/was not set/);
  });

  it('unset base-url: the profile falls back to the default service root', async () => {
    saveProfile('default', {});
    await ok(['config', 'unset', 'base-url']);
    expect(await listed()).toMatchObject({ 'base-url': { value: 'http://127.0.0.1:4010', source: 'default' } });
  });

  it('a profile with settings only: the key still comes from RFS_API_KEY, the service root from the profile', async () => {
    await ok(['config', 'set', 'base-url', server.url, '--profile', 'ci']);
    server.queue({ body: page([], null) });
    await ok(['recordings', 'list', '--profile', 'ci'], { env: { RFS_API_KEY: KEY } });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const noKey = cli(['recordings', 'list', '--profile', 'ci']);
    expect(await noKey.run()).toBe(3);
    expect(noKey.t.stderr()).toMatch(/no API key configured for profile "ci"/);
    // auth login adds the key to it and keeps its service root and settings.
    await ok(['config', 'set', 'rate', '30', '--profile', 'ci']);
    server.queue({ body: page([], null, 1) });
    await ok(['auth', 'login', '--with-key', '--profile', 'ci'], { stdin: `${KEY}\n` });
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.ci).toEqual({ baseUrl: server.url, rate: 30, apiKey: KEY });
  });
});
