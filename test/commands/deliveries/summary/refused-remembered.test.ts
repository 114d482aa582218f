// A remembered subscription id the service refuses (cli.md, deliveries, "Deleted subscriptions";
// config/remembered-subscriptions.ts): `../../recordings` in the state file, as a hand edit or
// another tool could leave it. summary lists behind the scenario's full lists per remembered id;
// the service answers that id's list 400. rfs skips it, forgets it and says so, and the table
// is still printed, with the exit code of what it shows (8: FAILED deliveries).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { RememberedSubscriptions } from '../../../../src/config/remembered-subscriptions.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { bufferIO } from '../../../helpers/io.js';

let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-refused-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

it('skips, forgets and names a remembered id the service refuses, and still prints the summary', async () => {
  const env = {
    NO_COLOR: '1',
    XDG_STATE_HOME: join(home, 'state'),
    RFS_CONFIG_DIR: join(home, 'config'),
    RFS_API_KEY: sandbox.apiKeys.admin,
    RFS_BASE_URL: sandbox.baseUrl,
  };
  const open = () => RememberedSubscriptions.open(env, { baseUrl: sandbox.baseUrl, profile: 'default' }, Date.now);
  const memory = open();
  memory.saw([{ id: '../../recordings', url: null }]);
  expect(await memory.save()).toBe(true);
  const t = bufferIO({ env, columns: 120 });
  const code = await runCli(['deliveries', 'summary'], t.io);
  expect(t.stderr()).toContain('forgot remembered subscription "../../recordings": the service refused its deliveries list (HTTP 400');
  expect(code).toBe(8);
  // Off a terminal the summary is json: every group there, the refused id in none.
  const groups = JSON.parse(t.stdout()) as { subscriptionId: string; status: string }[];
  expect(groups.some((g) => g.status === 'FAILED')).toBe(true);
  expect(groups.every((g) => g.subscriptionId !== '../../recordings')).toBe(true);
  expect(open().get('../../recordings')).toBeUndefined();
  // Said once: the next run has nothing to forget.
  const again = bufferIO({ env, columns: 120 });
  expect(await runCli(['deliveries', 'summary'], again.io)).toBe(8);
  expect(again.stderr()).not.toContain('forgot remembered subscription');
});
