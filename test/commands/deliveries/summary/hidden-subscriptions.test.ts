// summary and doctor on a first run in an incident (cli.md, deliveries, "Evidence, not
// inference"): rfs has never seen the scenario's deleted subscription, and the workspace's full
// FAILED list hides its 76 FAILED deliveries. Neither command can count them, so each says that
// full lists may hide subscriptions rfs has not seen and names `--subscription <id>` (json: a
// field); once rfs remembers the subscription, doctor counts its deliveries apart from those
// waiting, as docs/incidents.md promises.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { RememberedSubscriptions } from '../../../../src/config/remembered-subscriptions.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { bufferIO } from '../../../helpers/io.js';

let sandbox: RunningSandbox;
let home: string;
let ids: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-hidden-'));
  ids = Object.fromEntries((sandbox.scenario?.receivers ?? []).map((r) => [r.name, r.subscriptionId]));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const env = (state: string) => ({
  NO_COLOR: '1',
  XDG_STATE_HOME: join(home, state),
  RFS_CONFIG_DIR: join(home, 'config'),
  RFS_API_KEY: sandbox.apiKeys.admin,
  RFS_BASE_URL: sandbox.baseUrl,
});

async function rfs(args: string[], state: string) {
  const t = bufferIO({ env: env(state), columns: 80 });
  const code = await runCli(args, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

const HIDDEN =
  'the FAILED list and the PENDING list came back full (50 rows, the most the API lists), so deliveries of subscriptions rfs has not seen (one deleted before rfs ever listed it) may be hidden: name one with --subscription <id>';

describe('full lists that may hide subscriptions rfs has not seen', () => {
  it('summary on a first run says so on stderr, and in json on every group', async () => {
    const table = await rfs(['deliveries', 'summary'], 'first');
    expect(table.code).toBe(8);
    expect(table.stdout).not.toContain(ids.deleted);
    expect(table.stderr.replace(/\n/g, ' ')).toContain(HIDDEN.replace('the FAILED list and the PENDING list', ''));
    const json = await rfs(['deliveries', 'summary', '-o', 'json'], 'first-json');
    const groups = JSON.parse(json.stdout) as { othersMayBeHidden: boolean }[];
    expect(groups.length).toBeGreaterThan(0);
    expect(groups.every((g) => g.othersMayBeHidden === true)).toBe(true);
    // Named, the subscription's own lists are no workspace list: nothing is hidden from them.
    const named = await rfs(['deliveries', 'summary', '--subscription', ids.deleted ?? '', '-o', 'json'], 'named');
    const own = JSON.parse(named.stdout) as { subscriptionId: string; othersMayBeHidden: boolean }[];
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((g) => g.subscriptionId === ids.deleted && g.othersMayBeHidden === false)).toBe(true);
    expect(named.stderr).not.toContain('may be hidden');
  });

  it("doctor says so, and counts a remembered deleted subscription's FAILED deliveries apart from those waiting", async () => {
    const first = await rfs(['doctor', '-o', 'json'], 'doctor-first');
    const rows = JSON.parse(first.stdout) as { check: string; result: string; detail: string; found?: Record<string, unknown> }[];
    const failed = rows.find((r) => r.check === 'failed-deliveries');
    expect(failed?.result).toBe('warn');
    expect(failed?.detail).toMatch(/^50 or more waiting/);
    // doctor has no --subscription: it names the command that has one.
    expect(failed?.detail).toContain('name one with rfs deliveries summary --subscription <id>');
    expect(failed?.found).toEqual({ waiting: 50, waitingIsLowerBound: true, ofDeletedSubscriptions: [], othersMayBeHidden: true });

    const memory = RememberedSubscriptions.open(env('doctor-known'), { baseUrl: sandbox.baseUrl, profile: 'default' }, Date.now);
    memory.saw([{ id: ids.deleted ?? '', url: 'http://127.0.0.1:1/deleted' }]);
    expect(await memory.save()).toBe(true);
    const known = await rfs(['doctor', '-o', 'json'], 'doctor-known');
    const row = (JSON.parse(known.stdout) as typeof rows).find((r) => r.check === 'failed-deliveries');
    expect(row?.found).toMatchObject({ ofDeletedSubscriptions: [{ subscriptionId: ids.deleted, count: 50, countIsLowerBound: true }] });
    expect(row?.detail).toContain(`apart from those, 50+ of deleted subscription ${ids.deleted} (the service cannot replay them)`);
  });
});
