// How `replay --wait` ends when the lists do not answer (cli.md, deliveries: exit 8 when any
// outcome is not known when the timeout passed): --wait-timeout stops a list request in flight,
// and a poll that meets a storm of 503s is tried again within the budget until the timeout, then
// each delivery is "not known" with why. A scenario server on 127.0.0.1 answers, on the real
// clock (the deadlines are real); the wait loop's own cases run on the fake clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { type Replayed, waitForOutcomes } from '../../../../src/commands/deliveries/replay/wait.js';
import { ApiError } from '../../../../src/core/errors.js';
import type { Delivery } from '../../../../src/shared/schemas.js';
import { fakeTime } from '../../../helpers/clock.js';
import { problem } from '../../../helpers/fixtures.js';
import { bufferIO } from '../../../helpers/io.js';
import { type ScenarioServer, type ScriptedResponse, startScenarioServer } from '../../../helpers/scenario-server.js';

describe('replay --wait against a server that stops answering', () => {
  let server: ScenarioServer;
  let home: string;
  beforeEach(async () => {
    server = await startScenarioServer();
    home = mkdtempSync(join(tmpdir(), 'rfs-replay-wait-limits-'));
  });
  afterEach(async () => {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  });

  const replayed: ScriptedResponse = {
    expect: { method: 'POST', url: '/api/v1/webhooks/deliveries/dlv_1/replay' },
    status: 202,
    body: { data: { id: 'dlv_1', status: 'PENDING' } },
  };
  const list = (status: string): ScriptedResponse => ({
    expect: { method: 'GET', url: new RegExp(`^/api/v1/webhooks/deliveries\\?status=${status}&`) },
    body: { data: [] },
  });
  /** A 503 the client may try again at once (Retry-After: 0), so that a storm costs no real time. */
  const unavailable = (): ScriptedResponse => {
    const p = problem(503, 'UNAVAILABLE', 'Service Unavailable');
    return { ...p, headers: { ...p.headers, 'retry-after': '0' }, expect: { method: 'GET' } };
  };

  /** Off a terminal, one ndjson line per replay, then one per outcome: the last one. */
  const outcome = (stdout: string): unknown => JSON.parse(stdout.trim().split('\n').at(-1) ?? '');

  async function replay(...flags: string[]) {
    const t = bufferIO({
      env: {
        RFS_CONFIG_DIR: join(home, 'config'),
        XDG_STATE_HOME: join(home, 'state'),
        RFS_API_KEY: `service_pk_${'a'.repeat(32)}`,
        RFS_BASE_URL: server.url,
        NO_COLOR: '1',
      },
    });
    const started = Date.now();
    const code = await runCli(['deliveries', 'replay', 'dlv_1', '--yes', '--wait', ...flags], t.io);
    return { code, t, ms: Date.now() - started };
  }

  it('--wait-timeout stops a list the server never answers: "not known", exit 8', async () => {
    server.queue(replayed, { ...list('SUCCEEDED'), delayMs: 120_000 });
    const { code, t, ms } = await replay('--wait-timeout', '2');
    expect(code).toBe(8);
    expect(ms).toBeLessThan(10_000);
    expect(server.requests.at(-1)?.completed).toBe(false);
    expect(outcome(t.stdout())).toEqual({
      id: 'dlv_1',
      ok: false,
      finalStatus: null,
      known: false,
      why: 'no list answered since the replay: no answer within the 2 s of --wait-timeout',
    });
    expect(t.stderr()).toContain('1 not known after 2 s (--wait-timeout): dlv_1');
  });

  it('a poll that meets a storm of 503s is tried again within the budget until the timeout: "not known", exit 8', async () => {
    server.queue(
      replayed,
      // The first poll's first list gives up after 2 attempts…
      unavailable(),
      unavailable(),
      // …the second poll is sent, and the server hangs until the timeout.
      { ...list('SUCCEEDED'), delayMs: 120_000 },
    );
    const { code, t, ms } = await replay('--wait-timeout', '4', '--budget', '120', '--max-retries', '1');
    expect(code).toBe(8);
    expect(ms).toBeLessThan(12_000);
    expect(server.requests).toHaveLength(4);
    expect(outcome(t.stdout())).toMatchObject({
      id: 'dlv_1',
      known: false,
      why: 'no list answered since the replay: no answer within the 4 s of --wait-timeout',
    });
    expect(t.stderr()).toContain('1 not known after 4 s (--wait-timeout): dlv_1');
  });
});

describe('the wait loop, when a poll fails', () => {
  const BEFORE = Date.parse('2026-11-22T13:00:00Z');
  const one: Replayed = { id: 'dlv_x', subscriptionId: 'wh_1', before: BEFORE };
  const unavailable = () => new ApiError({ status: 503, code: 'UNAVAILABLE', title: 'Service Unavailable', requestId: null });
  const wait = (list: (status: 'SUCCEEDED' | 'FAILED') => Promise<Delivery[]>, timeoutMs = 60_000) => {
    const time = fakeTime();
    return waitForOutcomes([one], timeoutMs, { list, clock: time.clock, signal: new AbortController().signal, spacing: () => 5000 });
  };

  it('polls again after a 503 and states the outcome the next poll shows', async () => {
    let polls = 0;
    const result = await wait(async (status) => {
      if (status === 'SUCCEEDED') polls += 1;
      if (polls === 1) throw unavailable();
      return status === 'SUCCEEDED'
        ? [{ id: 'dlv_x', status: 'SUCCEEDED', subscriptionId: 'wh_1', lastAttemptAt: '2026-11-22T14:05:03Z' }]
        : [];
    });
    expect(result.outcomes).toMatchObject([{ id: 'dlv_x', known: true, status: 'SUCCEEDED' }]);
    expect(polls).toBe(2);
  });

  it('keeps polling through a storm until the timeout, then says why the outcome is not known', async () => {
    let calls = 0;
    const result = await wait(async () => {
      calls += 1;
      throw unavailable();
    }, 30_000);
    expect(result.timedOut).toBe(true);
    expect(result.waitedMs).toBe(30_000);
    // One poll every 5 s (the spacing asked for) from 0 to 30 s.
    expect(calls).toBe(7);
    expect(result.outcomes).toEqual([{ id: 'dlv_x', known: false, why: 'no list answered since the replay: Service Unavailable' }]);
  });

  it('says what the last poll that answered showed, and that the lists stopped answering since', async () => {
    let polls = 0;
    const result = await wait(async (status) => {
      if (status === 'SUCCEEDED') polls += 1;
      if (polls > 1) throw unavailable();
      return [];
    }, 20_000);
    expect(result.outcomes).toEqual([
      {
        id: 'dlv_x',
        known: false,
        why: 'still PENDING: neither the SUCCEEDED nor the FAILED list shows it; the lists did not answer since: Service Unavailable',
      },
    ]);
  });

  it('ends at once on a failure that will not pass (401)', async () => {
    const refused = new ApiError({ status: 401, code: 'UNAUTHENTICATED', title: 'Invalid API key', requestId: null });
    await expect(
      wait(async () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
  });
});
