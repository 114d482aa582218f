// End to end: the built bin/rfs.js as a child process, against `rfs sandbox` as a child
// process, the way a script on a server would use them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs, startSandboxProcess, type SandboxProcess } from '../helpers/child.js';

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/rfs.cjs', import.meta.url));

let sandbox: SandboxProcess;
let configDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--seed', '11']);
  configDir = mkdtempSync(join(tmpdir(), 'rfs-e2e-'));
  env = { RFS_CONFIG_DIR: configDir, RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin };
});
afterAll(async () => {
  expect(await sandbox.stop()).toBe(0);
  rmSync(configDir, { recursive: true, force: true });
});

describe('bin/rfs.js', () => {
  it('prints the version of package.json', async () => {
    const { default: pkg } = await import('../../package.json', { with: { type: 'json' } });
    const r = await runRfs(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('prints help with the commands of cli.md', async () => {
    const r = await runRfs(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['auth', 'recordings', 'file', 'webhooks', 'deliveries', 'verify-signature', 'completion', 'sandbox']) {
      expect(r.stdout).toContain(command);
    }
  });

  it('prints the pre-rendered overview exactly as the bundle renders it', async () => {
    const fromBundle = spawnSync(process.execPath, [BUNDLE, '--help'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, COLUMNS: '80', NO_COLOR: '1' },
    });
    const fromShim = await runRfs(['--help']);
    expect(fromShim.code).toBe(0);
    expect(fromShim.stdout).toBe(fromBundle.stdout);
    expect(fromShim.stdout).toMatch(/Getting started:/);
  });

  it('lists, files, and shows the filed recording gone from the unsynced list', async () => {
    const list = await runRfs(['recordings', 'list'], { env });
    expect(list.code).toBe(0);
    const items = JSON.parse(list.stdout) as { id: string; status: string; syncCount: number }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((r) => r.status === 'COMPLETED' && r.syncCount === 0)).toBe(true);
    const id = items[0]!.id;

    const filed = await runRfs(['file', id, '--provider', 'crm', '--external-id', 'E2E-1'], { env });
    expect(filed.code).toBe(0);
    expect(JSON.parse(filed.stdout)).toMatchObject({ id, syncCount: 1, replayed: false });
    const again = await runRfs(['file', id, '--provider', 'crm', '--external-id', 'E2E-1'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ id, syncCount: 1, replayed: true });

    const after = await runRfs(['recordings', 'list', '--all', '-o', 'ndjson'], { env });
    const ids = after.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).not.toContain(id);
    expect(ids).toHaveLength(new Set(ids).size);
  });

  it('exits 4 for an unknown recording and 3 for a revoked key', async () => {
    expect((await runRfs(['recordings', 'get', 'rec_nope'], { env })).code).toBe(4);
    const revoked = await runRfs(['recordings', 'list'], { env: { ...env, RFS_API_KEY: sandbox.apiKeys.revoked } });
    expect(revoked.code).toBe(3);
    expect(revoked.stderr).toMatch(/^error: .*\(UNAUTHORIZED, HTTP 401, request req_/);
    expect(revoked.stderr).not.toContain(sandbox.apiKeys.revoked);
  });

  // The transport is node:http, asked for with process.getBuiltinModule (src/api/transport.ts):
  // an ES module import of it would load Node's own copy of undici on Node 22+, and with it
  // node:http2.
  it("answers a list without loading node:http2 or Node's own undici", async () => {
    // A preload that reports, at exit, which built-in modules the process compiled.
    const probe = join(configDir, 'modules-probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write('\\nMODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n",
    );
    const r = await runRfs(['recordings', 'list', '--limit', '2'], { env: { ...env, NODE_OPTIONS: `--require ${probe}` } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    const loaded = JSON.parse(/MODULES (.*)/.exec(r.stderr)?.[1] ?? 'null') as string[];
    expect(loaded).toContain('NativeModule net');
    expect(loaded).not.toContain('NativeModule http2');
    expect(loaded).not.toContain('NativeModule internal/deps/undici/undici');
  });

  // One build for every Node: the bundle, compiled with a code cache that the first run on each
  // Node writes to the user's cache folder ($XDG_CACHE_HOME/rfs) and later runs read.
  it('writes a code cache on the first run and runs from it after, with the same output', async () => {
    const cacheHome = mkdtempSync(join(configDir, 'cache-'));
    const args = ['recordings', 'list', '--limit', '3'];
    const first = await runRfs(args, { env: { ...env, XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'rfs-bundle' } });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/RFS-BUNDLE \d+: no code cache yet at /);
    expect(first.stderr).toMatch(/RFS-BUNDLE \d+: code cache written to /);
    const caches = readdirSync(join(cacheHome, 'rfs'));
    expect(caches).toEqual([
      expect.stringMatching(new RegExp(`^[0-9a-f]{16}-v8-${process.versions.v8.replace(/\./g, '\\.')}-${process.arch}\\.cache$`)),
    ]);
    // The user's own: 0700 folder, 0600 file.
    expect(statSync(join(cacheHome, 'rfs')).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheHome, 'rfs', caches[0] as string)).mode & 0o777).toBe(0o600);
    const second = await runRfs(args, { env: { ...env, XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'rfs-bundle' } });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/RFS-BUNDLE \d+: code cache accepted/);
    expect(second.stderr).not.toMatch(/code cache written/);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
    expect((JSON.parse(second.stdout) as unknown[]).length).toBe(3);
    const off = await runRfs(args, {
      env: { ...env, XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'rfs-bundle', NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(off.code).toBe(0);
    expect(off.stderr).toMatch(/RFS-BUNDLE \d+: NODE_DISABLE_COMPILE_CACHE is set: no code cache/);
    expect(JSON.parse(off.stdout)).toEqual(JSON.parse(first.stdout));
  });

  // A cache from another build has another name: the bundle's first line carries a hash of it.
  it('keys the code cache on the bundle it was made from', async () => {
    const cacheHome = mkdtempSync(join(configDir, 'cache-'));
    const r = await runRfs(['recordings', 'list', '--limit', '1'], { env: { ...env, XDG_CACHE_HOME: cacheHome } });
    expect(r.code).toBe(0);
    const id = /^\/\/ rfs bundle ([0-9a-f]{16})\n/.exec(readFileSync(BUNDLE, 'latin1'))?.[1];
    expect(id).toBeDefined();
    expect(readdirSync(join(cacheHome, 'rfs'))).toEqual([`${id}-v8-${process.versions.v8}-${process.arch}.cache`]);
  });

  // Caches of older builds or other Nodes go when a new one is written: seven stay, this build's
  // other script's and two scripts each of three other builds or Nodes (a user who switches
  // between three Nodes keeps every one's); files rfs did not name are left alone.
  it('keeps the seven newest caches of other builds when it writes one, and removes the rest', async () => {
    const cacheHome = mkdtempSync(join(configDir, 'cache-'));
    const folder = join(cacheHome, 'rfs');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const others = Array.from({ length: 9 }, (_, i) => (i + 1).toString(16).padStart(16, '0'));
    others.forEach((id, age) => {
      const file = join(folder, `${id}-v8-1.0-x64.cache`);
      writeFileSync(file, 'x');
      const when = new Date(Date.now() - (age + 1) * 60_000);
      utimesSync(file, when, when);
    });
    writeFileSync(join(folder, 'notes.txt'), 'x');
    const r = await runRfs(['recordings', 'list', '--limit', '1'], { env: { ...env, XDG_CACHE_HOME: cacheHome } });
    expect(r.code).toBe(0);
    const left = readdirSync(folder).sort();
    const current = left.filter((f) => f.endsWith(`-v8-${process.versions.v8}-${process.arch}.cache`));
    expect(current).toHaveLength(1);
    expect(left).toEqual([...current, 'notes.txt', ...others.slice(0, 7).map((id) => `${id}-v8-1.0-x64.cache`)].sort());
  });

  // V8 takes a code cache only under the flags it was made with: a user's NODE_OPTIONS with a
  // V8 flag makes it reject the cache; the bundle is then compiled as any script is, and the
  // cache written again.
  it('still answers when V8 rejects the code cache under other V8 flags', async () => {
    const cacheHome = mkdtempSync(join(configDir, 'cache-'));
    const args = ['recordings', 'list', '--limit', '2'];
    expect((await runRfs(args, { env: { ...env, XDG_CACHE_HOME: cacheHome } })).code).toBe(0);
    const r = await runRfs(args, {
      env: { ...env, XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'rfs-bundle', NODE_OPTIONS: '--stack-trace-limit=20' },
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(2);
    expect(r.stderr).toMatch(/RFS-BUNDLE \d+: code cache set aside: rejected by V8/);
    expect(r.stderr).toMatch(/RFS-BUNDLE \d+: code cache written to /);
  });

  // --verbose runs the same bundle, through Node's loader with source maps on: a stack trace
  // names the source files.
  it('maps --verbose stack traces to the sources of the same bundle', async () => {
    const r = await runRfs(['recordings', 'get', 'rec_1', '-v'], { env: { ...env, RFS_API_KEY: 'not a key' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\bat \S+ \(\S*src\/config\/credentials\.ts:\d+:\d+\)/);
    expect(r.stderr).not.toMatch(/dist\/bundle\/rfs\.cjs:\d+/);
  });
});
