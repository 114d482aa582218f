// The environment of the command `rfs sync --exec` runs (docs/sync.md, "The command's
// environment"): an allow-list, so the API key and the webhook secret rfs holds never reach it
// unless named with --exec-env.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';

let h: Harness;
let dir: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 20 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-exec-env-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'whsec_exec_env_test_secret_0123456789';

/** Runs a pass of one recording whose command writes its environment (NUL-separated) to a file; answers it. */
async function commandEnvironment(extra: string[], env: NodeJS.ProcessEnv = {}): Promise<Map<string, string>> {
  const seen = join(dir, `env-${Math.random().toString(16).slice(2)}`);
  const t = bufferIO({
    env: {
      RFS_CONFIG_DIR: join(dir, 'config'),
      RFS_API_KEY: h.keys.admin,
      RFS_BASE_URL: h.base,
      RFS_WEBHOOK_SECRET: SECRET,
      PATH: process.env.PATH,
      HOME: dir,
      LC_TIME: 'C',
      CRM_TOKEN: 'crm-token-1',
      CRM_URL: 'https://crm.example',
      ...env,
    },
  });
  const command = `env -0 > "${seen}"; echo "crm-$RFS_RECORDING_ID"`;
  const argv = [
    'sync',
    '--exec',
    command,
    '--provider',
    'crm',
    '--journal',
    join(dir, `${Math.random()}.jsonl`),
    '-o',
    'ndjson',
    '--max-items',
    '1',
    ...extra,
  ];
  expect(await runCli(argv, t.io, { clock: fakeTime().clock })).toBe(0);
  const pairs = readFileSync(seen, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

describe('rfs sync --exec: the command environment', () => {
  it('holds the allow-list and what rfs sets, never the key or the webhook secret', async () => {
    const env = await commandEnvironment([]);
    expect(env.has('RFS_API_KEY')).toBe(false);
    expect(env.has('RFS_WEBHOOK_SECRET')).toBe(false);
    expect([...env.values()].join('\n')).not.toContain(h.keys.admin);
    expect([...env.values()].join('\n')).not.toContain(SECRET);
    // Not on the list: the integration's own variables come only when named.
    expect(env.has('CRM_TOKEN')).toBe(false);
    expect(env.has('RFS_BASE_URL')).toBe(false);
    expect(env.get('PATH')).toBe(process.env.PATH);
    expect(env.get('HOME')).toBe(dir);
    expect(env.get('LC_TIME')).toBe('C');
    expect(env.get('RFS_RECORDING_ID')).toMatch(/^rec_/);
    expect(env.get('RFS_ATTEMPT')).toBe('1');
  });

  it('adds what --exec-env and RFS_EXEC_ENV name, a PREFIX* included, but the key only by its name', async () => {
    const named = await commandEnvironment(['--exec-env', 'CRM_TOKEN']);
    expect(named.get('CRM_TOKEN')).toBe('crm-token-1');
    expect(named.has('CRM_URL')).toBe(false);

    const prefixed = await commandEnvironment(['--exec-env', 'CRM_*', '--exec-env', 'RFS_*']);
    expect(prefixed.get('CRM_URL')).toBe('https://crm.example');
    expect(prefixed.get('RFS_BASE_URL')).toBe(h.base);
    expect(prefixed.has('RFS_API_KEY')).toBe(false);
    expect(prefixed.has('RFS_WEBHOOK_SECRET')).toBe(false);

    const fromEnv = await commandEnvironment([], { RFS_EXEC_ENV: 'CRM_TOKEN, CRM_URL' });
    expect(fromEnv.get('CRM_TOKEN')).toBe('crm-token-1');
    expect(fromEnv.get('CRM_URL')).toBe('https://crm.example');

    const asked = await commandEnvironment(['--exec-env', 'RFS_API_KEY']);
    expect(asked.get('RFS_API_KEY')).toBe(h.keys.admin);
  });

  it('refuses an --exec-env that names no variable, with exit 2', async () => {
    const t = bufferIO({ env: { RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base } });
    const code = await runCli(['sync', '--exec', 'true', '--provider', 'crm', '--exec-env', 'A=B'], t.io, { clock: fakeTime().clock });
    expect(code).toBe(2);
    expect(t.stderr()).toContain('--exec-env "A=B" is not a variable\'s name');
  });
});
