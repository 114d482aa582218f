// End to end: the built bin/rfs.js as a child process, against `rfs sandbox` as a child
// process, the way a script on a server would use them.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs, startSandboxProcess, type SandboxProcess } from '../helpers/child.js';

const BUNDLE_DIR = fileURLToPath(new URL('../../dist/bundle/', import.meta.url));

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
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const fromBundle = spawnSync(process.execPath, [main, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
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
    const { writeFileSync } = await import('node:fs');
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

  it('was built with a code cache of its CommonJS bundle for the Node that built it', () => {
    const files = readdirSync(BUNDLE_DIR);
    expect(files).toContain('rfs.js');
    expect(files.filter((f) => /^v8-.+\.cache$/.test(f))).toHaveLength(1);
  });

  // bin/rfs.js runs the CommonJS bundle where dist/bundle/ holds a code cache for this Node's V8
  // (the Node that ran the build: Node 20 in CI), and the ES module build on any other (Node 24
  // in CI, which runs this file too), or when NODE_DISABLE_COMPILE_CACHE is set.
  it('runs the cached CommonJS bundle on the Node that built it and the ES modules otherwise, with the same output', async () => {
    const args = ['recordings', 'list', '--limit', '3'];
    const cached = existsSync(join(BUNDLE_DIR, `v8-${process.versions.v8}-${process.arch}.cache`));
    const chosen = await runRfs(args, { env: { ...env, NODE_DEBUG: 'rfs-bundle' } });
    expect(chosen.code).toBe(0);
    expect(chosen.stderr).toMatch(
      cached ? /RFS-BUNDLE \d+: the CommonJS bundle, code cache accepted/ : /RFS-BUNDLE \d+: no code cache for V8 \S+: the ES module build/,
    );
    const modules = await runRfs(args, { env: { ...env, NODE_DEBUG: 'rfs-bundle', NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(modules.code).toBe(0);
    expect(modules.stderr).toMatch(/RFS-BUNDLE \d+: NODE_DISABLE_COMPILE_CACHE is set: the ES module build/);
    expect(JSON.parse(modules.stdout)).toEqual(JSON.parse(chosen.stdout));
    expect((JSON.parse(chosen.stdout) as unknown[]).length).toBe(3);
  });

  // V8 takes a code cache only under the flags it was made with: a user's NODE_OPTIONS with a
  // V8 flag makes it reject the cache, and the bundle is then compiled as any script is.
  it('still answers when V8 rejects the code cache under other V8 flags', async () => {
    const args = ['recordings', 'list', '--limit', '2'];
    const r = await runRfs(args, { env: { ...env, NODE_DEBUG: 'rfs-bundle', NODE_OPTIONS: '--max-old-space-size=300' } });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(2);
    if (existsSync(join(BUNDLE_DIR, `v8-${process.versions.v8}-${process.arch}.cache`))) {
      expect(r.stderr).toMatch(/RFS-BUNDLE \d+: the CommonJS bundle, code cache rejected/);
    } else {
      expect(r.stderr).toMatch(/the ES module build/);
    }
  });
});
