// The first 404 of a replay that no list explains says what it may be (cli.md, deliveries,
// "Evidence, not inference"): on a first run in `--scenario incident`, rfs has never seen the
// deleted subscription, and its deliveries sit behind the workspace's full FAILED list; the
// replay of one of them is a 404 that names the possibility, never as a fact, nor a bare 404.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { bufferIO } from '../../../helpers/io.js';

let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-not-found-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

it("a first run's replay of a deleted subscription's delivery says what the 404 may be", async () => {
  const deleted = sandbox.scenario?.receivers.find((r) => r.name === 'deleted')?.subscriptionId ?? '';
  const state = await sandbox.control.exportState();
  const target = state.deliveries.find((d) => d.subscriptionId === deleted && d.status === 'FAILED')?.id ?? '';
  expect(target).not.toBe('');
  const t = bufferIO({
    env: {
      NO_COLOR: '1',
      XDG_STATE_HOME: join(home, 'state'),
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
  });
  const code = await runCli(['deliveries', 'replay', target, '-o', 'ndjson'], t.io);
  expect(code).toBe(8);
  const line = JSON.parse(t.stdout()) as { ok: boolean; error: { status: number; title: string } };
  expect(line.error.status).toBe(404);
  expect(line.error.title).toMatch(
    /: no list shows this delivery; it may be a delivery of a deleted subscription, which the service keeps listing but cannot replay; the FAILED list came back full, and the API lists only the newest 50$/,
  );
});
