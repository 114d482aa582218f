// deliveries summary (cli.md, deliveries) against a sandbox with three subscriptions:
// healthy (nothing to show), refusing (2 FAILED, HTTP 500) and deleted (2 FAILED, shown as
// deleted). Exit 8 while anything is FAILED, 0 otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { fakeTime } from '../../../helpers/clock.js';
import { bufferIO, type BufferIOOptions } from '../../../helpers/io.js';
import { api, incidentSandbox, type IncidentSandbox } from '../incident-support.js';

let h: IncidentSandbox;
let configDir: string;

beforeEach(async () => {
  h = await incidentSandbox();
  configDir = mkdtempSync(join(tmpdir(), 'rfs-summary-'));
});
afterEach(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** Two hours after the deliveries' attempts, on the CLI's clock: every age reads `2h ago`. */
async function summary(args: string[], io: BufferIOOptions = {}) {
  const t = bufferIO({
    ...io,
    env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.sandbox.apiKeys.admin, RFS_BASE_URL: h.sandbox.baseUrl, NO_COLOR: '1' },
  });
  const time = fakeTime(Date.now() + 2 * 3_600_000 + 60_000);
  const code = await runCli(['deliveries', 'summary', ...args], t.io, { clock: time.clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('deliveries summary', () => {
  it('groups FAILED deliveries by subscription and last error, the deleted subscription shown as such (table)', async () => {
    const { code, stdout, stderr } = await summary(['-o', 'table']);
    expect(code).toBe(8);
    const { refusing, deleted } = h.ids;
    const urlOf = (id: string) => (id === refusing ? h.refusing.url : '(deleted)');
    const [first, second] = [refusing, deleted].sort() as [string, string];
    expect(stdout).toBe(
      [
        'SUBSCRIPTION             STATUS  COUNT  LAST ERROR  OLDEST  NEWEST  URL',
        `${first}  FAILED      2  HTTP 500    2h ago  2h ago  ${urlOf(first)}`,
        `${second}  FAILED      2  HTTP 500    2h ago  2h ago  ${urlOf(second)}`,
        '',
      ].join('\n'),
    );
    expect(stderr).toBe(`subscription ${deleted} was deleted: its FAILED deliveries cannot be replayed\n`);
  });

  it('keeps the ids and OLDEST on an 80-column terminal, leaving out NEWEST then the URL', async () => {
    const { stdout, stderr } = await summary(['-o', 'table'], { stdoutIsTTY: true, columns: 80 });
    const { refusing, deleted } = h.ids;
    const [first, second] = [refusing, deleted].sort() as [string, string];
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('SUBSCRIPTION             STATUS  COUNT  LAST ERROR  OLDEST');
    expect(lines.slice(1).map((l) => l.split(/ {2,}/).slice(0, 4))).toEqual([
      [first, 'FAILED', '2', 'HTTP 500'],
      [second, 'FAILED', '2', 'HTTP 500'],
      [''],
    ]);
    for (const line of lines.slice(1, 3)) expect(line).toMatch(/ \d+[smh] ago$/);
    // The URL is gone from the table; the deleted subscription is still named.
    expect(stderr).toContain(`subscription ${deleted} was deleted`);
  });

  it('gives every field in json, a count that is exact, and exit 8', async () => {
    const { code, stdout } = await summary(['-o', 'json']);
    expect(code).toBe(8);
    const groups = JSON.parse(stdout) as Record<string, unknown>[];
    const bySub = Object.fromEntries(groups.map((g) => [g.subscriptionId, g]));
    expect(Object.keys(bySub).sort()).toEqual([h.ids.refusing, h.ids.deleted].sort());
    expect(bySub[h.ids.refusing]).toMatchObject({
      url: h.refusing.url,
      exists: true,
      status: 'FAILED',
      lastError: 'HTTP 500',
      count: 2,
      countIsLowerBound: false,
    });
    expect(bySub[h.ids.deleted]).toMatchObject({
      url: null,
      exists: false,
      status: 'FAILED',
      lastError: 'HTTP 500',
      count: 2,
      countIsLowerBound: false,
    });
    for (const g of groups) {
      expect(Date.parse(String(g.oldestAttemptAt))).toBeLessThanOrEqual(Date.parse(String(g.newestAttemptAt)));
    }
  });

  it('--subscription keeps one subscription; the healthy one has nothing to show and exits 0', async () => {
    const one = await summary(['--subscription', h.ids.refusing, '-o', 'ndjson']);
    expect(one.code).toBe(8);
    expect(
      one.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { subscriptionId: string }).subscriptionId),
    ).toEqual([h.ids.refusing]);
    const none = await summary(['--subscription', h.ids.healthy, '-o', 'table']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('no FAILED or PENDING deliveries\n');
  });

  it('exits 0 once the FAILED deliveries are replayed and SUCCEEDED', async () => {
    h.refusing.answer = () => 200;
    const failed = (await api(h.sandbox, 'GET', `/webhooks/deliveries?status=FAILED&subscriptionId=${h.ids.refusing}`)) as {
      data: { id: string }[];
    };
    for (const d of failed.data) await api(h.sandbox, 'POST', `/webhooks/deliveries/${d.id}/replay`);
    const { until } = await import('../incident-support.js');
    await until('the replays to succeed', async () => (await h.sandbox.control.stats()).deliveries.succeeded === 4);
    const after = await summary(['--subscription', h.ids.refusing, '-o', 'json']);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe('[]\n');
  });
});
