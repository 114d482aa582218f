// The config file is read and parsed at most once per run, and only by a command that uses a
// profile or a setting: `completion` and `sandbox` never touch it; `recordings list` reads it once
// for its settings and its connection together.
import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { fakeTime } from '../helpers/clock.js';
import { page } from '../helpers/fixtures.js';
import { bufferIO } from '../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

const KEY = 'service_pk_readsKEY_4242';
let dir: string;
let server: ScenarioServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-reads-'));
  server = await startScenarioServer();
  mkdirSync(join(dir, 'config'), { mode: 0o700 });
  const profile = { baseUrl: server.url, apiKey: KEY, rate: 60, output: 'json' };
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ defaultProfile: 'default', profiles: { default: profile } }), {
    mode: 0o600,
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs rfs and returns its exit code and every path below the config folder that fs read or looked at. */
async function touches(argv: string[]): Promise<{ code: number; stderr: string; read: string[]; looked: string[] }> {
  const configDir = join(dir, 'config');
  const read: string[] = [];
  const looked: string[] = [];
  const readFileSync = fs.readFileSync;
  vi.spyOn(fs, 'readFileSync').mockImplementation(((...args: Parameters<typeof readFileSync>) => {
    if (String(args[0]).startsWith(configDir)) read.push(String(args[0]));
    return readFileSync(...args);
  }) as typeof readFileSync);
  // The config file itself is opened, then read by its descriptor (profiles.ts, readConfigFile):
  // an open of that path is a read of it.
  const openSync = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation(((...args: Parameters<typeof openSync>) => {
    if (String(args[0]) === join(configDir, 'config.json')) read.push(String(args[0]));
    return openSync(...args);
  }) as typeof openSync);
  for (const name of ['existsSync', 'statSync'] as const) {
    const real = fs[name] as (...args: unknown[]) => unknown;
    vi.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
      if (String(args[0]).startsWith(configDir)) looked.push(String(args[0]));
      return real(...args);
    }) as never);
  }
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, XDG_STATE_HOME: join(dir, 'state') } });
  const code = await runCli(argv, t.io, { clock: fakeTime().clock });
  return { code, stderr: t.stderr(), read, looked };
}

describe('reading the config file', () => {
  it('rfs completion bash neither reads nor looks at it', async () => {
    const r = await touches(['completion', 'bash']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.read).toEqual([]);
    expect(r.looked).toEqual([]);
  });

  it('recordings list reads it once, for its settings and its connection', async () => {
    server.queue({ body: page([], null) });
    const r = await touches(['recordings', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.read).toEqual([join(dir, 'config', 'config.json')]);
  });

  it('config set reads it once to show and again under the lock to change it', async () => {
    const r = await touches(['config', 'set', 'rate', '30']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.read).toEqual([join(dir, 'config', 'config.json'), join(dir, 'config', 'config.json')]);
  });
});
