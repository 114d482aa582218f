// End to end: the built bin/rfs.js as a child process, against `rfs sandbox` as a child
// process, the way a script on a server would use them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs, startSandboxProcess, type SandboxProcess } from '../helpers/child.js';

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
    const ids = after.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
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

  // The bundles load undici's HTTP/2 code on its first use only, and nothing imports node:http
  // as an ES module (on Node 22+ that loads Node's own copy of undici, and node:http2 with it).
  it('answers a list without loading node:http2 or Node\'s own undici', async () => {
    // A preload that reports, at exit, which built-in modules the process compiled.
    const probe = join(configDir, 'modules-probe.cjs');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(probe, "process.on('exit', () => process.stderr.write('\\nMODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n");
    const r = await runRfs(['recordings', 'list', '--limit', '2'], { env: { ...env, NODE_OPTIONS: `--require ${probe}` } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    const loaded = JSON.parse(/MODULES (.*)/.exec(r.stderr)?.[1] ?? 'null') as string[];
    expect(loaded).toContain('NativeModule net');
    expect(loaded).not.toContain('NativeModule http2');
    expect(loaded).not.toContain('NativeModule internal/deps/undici/undici');
  });
});
