// watch's budget holds every attempt, retries included (cli.md, deliveries, "watch's budget"):
// the client's retries wait for a slot in the budget as the first attempt does (the client's
// per-attempt gate, api/types.ts AttemptGate). A scripted server answers every list 503; with
// --budget 6 and 11 retries allowed, the twelve attempts of the one request spread over more
// than a minute, never 7 within 60 s, and the poll that failed is not the end of the watch: the
// next poll's request is held by the same budget. On the fake clock: no real wait.
import { channel } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ATTEMPT_CHANNEL } from '../../../../src/api/client.js';
import { runCli } from '../../../../src/cli/run.js';
import { fakeTime } from '../../../helpers/clock.js';
import { problem } from '../../../helpers/fixtures.js';
import { bufferIO } from '../../../helpers/io.js';
import { type ScenarioServer, startScenarioServer } from '../../../helpers/scenario-server.js';

let server: ScenarioServer;
let home: string;

beforeEach(async () => {
  server = await startScenarioServer();
  home = mkdtempSync(join(tmpdir(), 'rfs-watch-retries-'));
});
afterEach(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

it('--budget 6 keeps 6 attempts a minute when every answer is a 503 and the client retries', async () => {
  const attempts = 12;
  server.queue(
    ...Array.from({ length: attempts }, () => ({ status: 503, body: { title: 'Service Unavailable', status: 503, code: 'UNAVAILABLE' } })),
    // The next poll's first request, after the failed poll: refused, which ends the run.
    problem(401, 'UNAUTHENTICATED', 'Invalid API key'),
  );
  const t = bufferIO({
    env: {
      RFS_CONFIG_DIR: join(home, 'config'),
      XDG_STATE_HOME: join(home, 'state'),
      RFS_API_KEY: `service_pk_${'a'.repeat(32)}`,
      RFS_BASE_URL: server.url,
    },
  });
  const time = fakeTime();
  const at: number[] = [];
  const record = (): void => {
    at.push(time.now);
  };
  const ch = channel(ATTEMPT_CHANNEL);
  ch.subscribe(record);
  let code: number;
  try {
    code = await runCli(
      [
        'deliveries',
        'watch',
        '--subscription',
        'wh_1',
        '--budget',
        '6',
        '--max-retries',
        String(attempts - 1),
        '--max-time',
        '600',
        '-o',
        'ndjson',
      ],
      t.io,
      { clock: time.clock },
    );
  } finally {
    ch.unsubscribe(record);
  }
  // The one request gave up after its twelve attempts: the poll failed, said so, and watch went on
  // with the next poll (its refusal, a 401, ends the run).
  expect(code).toBe(3);
  expect(
    t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown),
  ).toMatchObject([{ type: 'poll-failed', status: 503 }]);
  expect(server.requests).toHaveLength(attempts + 1);
  expect(at).toHaveLength(attempts + 1);
  for (const start of at) expect(at.filter((a) => a >= start && a < start + 60_000).length).toBeLessThanOrEqual(6);
  // And no slower than it must be: the seventh waits for the first to leave the minute.
  expect((at[6] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(60_000);
  expect((at[6] ?? 0) - (at[0] ?? 0)).toBeLessThan(90_000);
});
