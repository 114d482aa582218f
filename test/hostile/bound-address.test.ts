// Servers bound beyond loopback (cli.md, webhooks listen and sync: --host, --metrics). `webhooks listen --host 0.0.0.0` and `sync --metrics
// 0.0.0.0:0` said they listened on 127.0.0.1 and gave no warning: they now name the address
// really bound and warn as the sandbox does. A config file that is a FIFO hung every command:
// it is refused, exit 2, at once. (As the sandbox's own test of --host 0.0.0.0 does, the
// wildcard is bound on port 0 for a moment; nothing connects to anything but loopback.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { runRfs } from '../helpers/child.js';
import { bufferIO } from '../helpers/io.js';
import { start, type Harness } from '../sandbox/helpers.js';

let dir: string;
let h: Harness;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-bound-'));
  h = await start({ rateLimit: 0, recordings: 3 });
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `webhooks listen` until it has said where it listens, then stops it; returns stderr. */
async function listen(args: string[]): Promise<string> {
  const t = bufferIO({ env: { RFS_WEBHOOK_SECRET: 'whsec_boundAddressTest0000', RFS_CONFIG_DIR: join(dir, 'config') } });
  const controller = new AbortController();
  const done = runCli(['webhooks', 'listen', '--port', '0', ...args], t.io, { signal: controller.signal });
  const deadline = Date.now() + 10_000;
  while (!/^listening on .*\n/m.test(t.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  expect(await done).toBe(0);
  return t.stderr();
}

describe('a server bound beyond loopback says so', () => {
  it('webhooks listen --host 0.0.0.0: the address bound, how this machine reaches it, and a warning', async () => {
    const stderr = await listen(['--host', '0.0.0.0']);
    expect(stderr).toMatch(/^listening on http:\/\/0\.0\.0\.0:(\d+) \(every interface; http:\/\/127\.0\.0\.1:\1 from this machine\)$/m);
    expect(stderr).toContain(
      'warning: --host 0.0.0.0 is not a loopback address: the receiver can be reached from the network; bind 127.0.0.1 (the default) to keep it on this machine',
    );
  });

  it('webhooks listen on loopback: the line as before, no warning', async () => {
    for (const host of [[], ['--host', '127.0.0.1'], ['--host', 'localhost']]) {
      const stderr = await listen(host);
      expect(stderr).toMatch(/^listening on http:\/\/(127\.0\.0\.1|localhost):\d+$/m);
      expect(stderr).not.toContain('warning');
    }
  });

  it('sync --metrics 0.0.0.0:0: the address bound, and a warning', async () => {
    const t = bufferIO({
      env: { RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base, PATH: process.env.PATH },
    });
    const argv = [
      'sync',
      '--exec',
      'cat > /dev/null; echo EXT-1',
      '--provider',
      'crm',
      '--max-items',
      '1',
      '--journal',
      join(dir, 'j.jsonl'),
    ];
    expect(await runCli([...argv, '--metrics', '0.0.0.0:0'], t.io)).toBe(0);
    expect(t.stderr()).toMatch(/sync: metrics on http:\/\/0\.0\.0\.0:\d+\/metrics, health on http:\/\/0\.0\.0\.0:\d+\/healthz/);
    expect(t.stderr()).toContain(
      'warning: --metrics 0.0.0.0:0 is not a loopback address: the metrics and health endpoints (no key) can be reached',
    );
    const local = bufferIO({ env: t.io.env });
    expect(await runCli([...argv, '--metrics', '0', '--journal', join(dir, 'j2.jsonl')], local.io)).toBe(0);
    expect(local.stderr()).toMatch(/sync: metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(local.stderr()).not.toContain('warning');
  });
});

describe('a config file that is not a regular file', () => {
  it('a FIFO: refused with exit 2 at once, instead of waiting for a writer forever', async () => {
    const config = join(dir, 'fifo-config');
    mkdirSync(config, { mode: 0o700 });
    execFileSync('mkfifo', [join(config, 'config.json')]);
    for (const argv of [
      ['recordings', 'list'],
      ['config', 'list'],
      ['auth', 'status'],
    ]) {
      const started = Date.now();
      const r = await runRfs(argv, { env: { RFS_CONFIG_DIR: config, RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base }, timeoutMs: 10_000 });
      expect(r.signal, `rfs ${argv.join(' ')} hung`).toBeNull();
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`the config file ${join(config, 'config.json')} is not a regular file`);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it('a folder in its place: refused with exit 2', async () => {
    const config = join(dir, 'folder-config');
    mkdirSync(join(config, 'config.json'), { recursive: true, mode: 0o700 });
    const r = await runRfs(['config', 'list'], { env: { RFS_CONFIG_DIR: config }, timeoutMs: 10_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('is not a regular file');
  });
});
