// One time style per output: `deliveries list` and `webhooks list` tables show
// ages, as `recordings list` and `deliveries summary` do; json keeps the exact times.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';
import { incidentSandbox, type IncidentSandbox } from '../commands/deliveries/incident-support.js';

let h: IncidentSandbox;
let configDir: string;

beforeEach(async () => {
  h = await incidentSandbox();
  configDir = mkdtempSync(join(tmpdir(), 'rfs-time-style-'));
});
afterEach(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

async function table(args: string[]): Promise<string[]> {
  // Two hours and a minute after everything happened, on the run's clock.
  const clock = fakeTime(Date.now() + 2 * 3_600_000 + 60_000).clock;
  const t = bufferIO({
    env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.sandbox.apiKeys.admin, RFS_BASE_URL: h.sandbox.baseUrl, NO_COLOR: '1' },
  });
  expect(await runCli([...args, '-o', 'table'], t.io, { clock })).toBe(0);
  return t.stdout().trim().split('\n');
}

it('deliveries list: LAST ATTEMPT as an age', async () => {
  const [header, ...rows] = await table(['deliveries', 'list']);
  expect(header).toMatch(/LAST ATTEMPT/);
  expect(rows).toHaveLength(6);
  for (const row of rows) expect(row).toMatch(/ {2}2h ago {2}/);
});

it('webhooks list: CREATED as an age', async () => {
  const [header, ...rows] = await table(['webhooks', 'list']);
  expect(header).toMatch(/CREATED$/);
  expect(rows).toHaveLength(2);
  for (const row of rows) expect(row).toMatch(/ {2}2h ago$/);
});
