// watch's ndjson in a recovered incident (cli.md, deliveries, "Evidence, not inference"):
// `rfs sandbox --scenario incident`, whose lists all come back full, the failing receiver made to
// recover, then `replay --all-failed --subscription <failing> --max 10 --yes`. The replay moves
// ten FAILED deliveries off the full FAILED list, so ten older ones surface behind it: they are
// no change (nothing happened to them while watched), and they do not make the subscription
// "failing" at the moment it recovers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { bufferIO } from '../../../helpers/io.js';
import { until } from '../incident-support.js';

let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-watch-recovery-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const env = () => ({
  NO_COLOR: '1',
  XDG_STATE_HOME: join(home, 'state'),
  RFS_CONFIG_DIR: join(home, 'config'),
  RFS_API_KEY: sandbox.apiKeys.admin,
  RFS_BASE_URL: sandbox.baseUrl,
});

type Line =
  | { type: 'delivery'; time: string; id: string; subscriptionId: string; from: string | null; to: string }
  | { type: 'subscription'; time: string; subscriptionId: string; state: string };

it('after a 10-delivery replay in a recovered incident: the replayed ones change, no surfaced old failure is "new", no "failing" line', async () => {
  const failing = sandbox.scenario?.receivers.find((r) => r.name === 'failing')?.subscriptionId ?? '';
  expect(failing).not.toBe('');
  await fetch(`${sandbox.baseUrl}/_sandbox/receivers/failing`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'ok' }),
  });
  const t = bufferIO({ env: env() });
  const controller = new AbortController();
  const watching = runCli(['deliveries', 'watch', '-o', 'ndjson', '--budget', '120', '--interval', '0.5'], t.io, {
    signal: controller.signal,
  });
  await until('the first poll', () => t.stderr().includes('watching deliveries'), 20_000);
  const watchStart = Date.now();

  const r = bufferIO({ env: env() });
  expect(
    await runCli(['deliveries', 'replay', '--all-failed', '--subscription', failing, '--max', '10', '--yes', '-o', 'ndjson'], r.io),
  ).toBe(0);
  const replayed = r
    .stdout()
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { id: string }).id);
  expect(replayed).toHaveLength(10);
  const lines = (): Line[] =>
    t
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
  const succeeded = (id: string) => lines().some((l) => l.type === 'delivery' && l.id === id && l.to === 'SUCCEEDED');
  await until('the ten replays seen SUCCEEDED', () => replayed.every(succeeded), 20_000);
  // Two more polls after that (two more FAILED lists of the whole workspace), for anything surfacing late.
  const failedLists = async () =>
    (await sandbox.control.requests()).filter((q) => q.method === 'GET' && q.query === 'status=FAILED&limit=50').length;
  const seen = await failedLists();
  await until('two more polls', async () => (await failedLists()) >= seen + 2, 20_000);
  controller.abort();
  expect(await watching).toBe(130);

  const state = await sandbox.control.exportState();
  const byId = new Map(state.deliveries.map((d) => [d.id, d]));
  const all = lines();
  for (const line of all) {
    if (line.type !== 'delivery' || line.from !== null) continue;
    // A delivery new to the watch: its last attempt (or its creation) is newer than the watch.
    const d = byId.get(line.id);
    const at = Date.parse(String(d?.lastAttemptAt ?? d?.createdAt ?? ''));
    expect({ id: line.id, newerThanWatch: at >= watchStart - 2000 }).toEqual({ id: line.id, newerThanWatch: true });
  }
  expect(all.filter((l) => l.type === 'delivery' && l.from === null && l.to === 'FAILED')).toEqual([]);
  expect(all.filter((l) => l.type === 'subscription' && l.state === 'failing')).toEqual([]);
  for (const id of replayed) expect(all.some((l) => l.type === 'delivery' && l.id === id && l.from === 'FAILED')).toBe(true);
}, 60_000);
