// `replay --all-failed --since 30m --error 503 --yes --wait` in a recovered incident (cli.md,
// deliveries, "Evidence, not inference"): `rfs sandbox --scenario incident`, whose lists all
// come back full, after `POST /_sandbox/receivers/failing {"mode":"ok"}`. Every replayed
// delivery is reported SUCCEEDED (as GET /_sandbox/state holds it), within 60 s, exit 0, and
// the wait keeps to its budget of 12 requests a minute in the sandbox's request log. Real time:
// the budget spaces the polls about 10 s apart, and the first poll usually settles them all.
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
  home = mkdtempSync(join(tmpdir(), 'rfs-wait-scenario-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Line {
  id: string;
  ok: boolean;
  finalStatus?: string | null;
  status?: string;
}

it('reports every replayed delivery SUCCEEDED as the sandbox holds it, within 60 s, at most 12 requests a minute while waiting', async () => {
  const recovered = await fetch(`${sandbox.baseUrl}/_sandbox/receivers/failing`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'ok' }),
  });
  expect(recovered.status).toBe(200);
  await sandbox.control.clearRequests();
  const t = bufferIO({
    env: {
      NO_COLOR: '1',
      XDG_STATE_HOME: join(home, 'state'),
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
  });
  const started = Date.now();
  const code = await runCli(
    ['deliveries', 'replay', '--all-failed', '--since', '30m', '--error', '503', '--yes', '--wait', '-o', 'ndjson'],
    t.io,
  );
  const took = Date.now() - started;
  const lines = t
    .stdout()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  const replayed = lines.filter((l) => l.finalStatus === undefined).map((l) => l.id);
  const finals = lines.filter((l) => l.finalStatus !== undefined);
  expect(t.stderr()).toMatch(new RegExp(`^waited \\d+ s: ${replayed.length} SUCCEEDED, 0 FAILED again$`, 'm'));
  expect(code).toBe(0);
  expect(replayed.length).toBeGreaterThan(10);
  expect(finals.map((l) => l.id)).toEqual(replayed);
  expect(finals.every((l) => l.finalStatus === 'SUCCEEDED' && l.ok)).toBe(true);
  expect(took).toBeLessThan(60_000);

  // The sandbox's own record agrees.
  const state = await sandbox.control.exportState();
  const status = new Map(state.deliveries.map((d) => [d.id, d.status]));
  expect(replayed.map((id) => status.get(id))).toEqual(replayed.map(() => 'SUCCEEDED'));

  // While waiting (after the last replay was sent): at most 12 requests in any 60 s.
  const log = await sandbox.control.requests();
  const lastReplay = Math.max(...log.filter((r) => r.method === 'POST').map((r) => r.seq));
  const waiting = log.filter((r) => r.seq > lastReplay).map((r) => Date.parse(r.time));
  expect(waiting.length).toBeGreaterThan(0);
  const most = Math.max(...waiting.map((t0) => waiting.filter((t1) => t1 >= t0 && t1 < t0 + 60_000).length));
  expect(most).toBeLessThanOrEqual(12);
}, 90_000);
