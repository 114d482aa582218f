// deliveries summary past the API's 50-row list (cli.md, deliveries): 60 FAILED
// deliveries of one subscription and 3 of a second: the full list is listed again per
// subscription, so the second's 3 are counted exactly and the first's count reads `50+`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { fakeTime } from '../../../helpers/clock.js';
import { bufferIO } from '../../../helpers/io.js';
import { sandboxWithFailed, type FailedSandbox } from '../support.js';

let h: FailedSandbox;
let configDir: string;

beforeEach(async () => {
  h = await sandboxWithFailed(63);
  // The newest 3 moved to a second subscription (same receiver): newest first, they fill the
  // first list's top rows, which are not the first subscription's 50 newest any more.
  const created = await fetch(`${h.sandbox.baseUrl}/api/v1/webhooks`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${h.sandbox.apiKeys.admin}`,
      'content-type': 'application/json',
      'idempotency-key': 'summary-full-2',
    },
    body: JSON.stringify({ url: `${h.receiver.url}2`, events: ['recording.completed'] }),
  });
  const second = ((await created.json()) as { data: { id: string } }).data.id;
  const state = await h.sandbox.control.exportState();
  const newest = new Set(h.failed.slice(-3));
  state.deliveries = state.deliveries.map((d) => (newest.has(d.id) ? { ...d, subscriptionId: second } : d));
  await h.sandbox.control.importState(state);
  configDir = mkdtempSync(join(tmpdir(), 'rfs-summary-full-'));
  Object.assign(h, { second });
});
afterEach(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

it('lists a full status again per subscription and marks the full one as a lower bound (50+)', async () => {
  const second = (h as FailedSandbox & { second: string }).second;
  const run = async (format: string) => {
    const t = bufferIO({
      env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.sandbox.apiKeys.admin, RFS_BASE_URL: h.sandbox.baseUrl, NO_COLOR: '1' },
    });
    const code = await runCli(['deliveries', 'summary', '-o', format], t.io, { clock: fakeTime(Date.now() + 3_600_000).clock });
    return { code, stdout: t.stdout() };
  };
  const json = await run('json');
  expect(json.code).toBe(8);
  const groups = JSON.parse(json.stdout) as { subscriptionId: string; count: number; countIsLowerBound: boolean }[];
  expect(groups.map((g) => [g.subscriptionId, g.count, g.countIsLowerBound])).toEqual([
    [h.subscriptionId, 50, true],
    [second, 3, false],
  ]);
  const table = await run('table');
  expect(table.stdout.split('\n').map((l) => l.split(/ {2,}/).slice(0, 3).join('|'))).toEqual([
    'SUBSCRIPTION|STATUS|COUNT',
    `${h.subscriptionId}|FAILED|50+`,
    `${second}|FAILED|3`,
    '',
  ]);
});
