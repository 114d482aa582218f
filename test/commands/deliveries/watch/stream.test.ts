// deliveries watch off a terminal (cli.md, deliveries): the ndjson stream checked line
// by line against the sandbox's delivery attempts and request log. Two subscriptions, one
// healthy and one refusing (2 attempts, 50 ms apart); two recordings completed while watching,
// then one FAILED delivery replayed once the receiver is back. Every status change is seen once,
// none invented; Ctrl-C exits 130.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { channel } from 'node:diagnostics_channel';
import { ATTEMPT_CHANNEL } from '../../../../src/api/client.js';
import { runCli } from '../../../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { startReceiver, type Receiver } from '../support.js';
import { fakeTime } from '../../../helpers/clock.js';
import { bufferIO } from '../../../helpers/io.js';
import { api, until } from '../incident-support.js';

interface Line {
  type: 'delivery';
  time: string;
  id: string;
  subscriptionId: string;
  recordingId: string;
  from: string | null;
  to: string;
  lastError?: string;
}

let sandbox: RunningSandbox;
let healthy: Receiver;
let refusing: Receiver;
let configDir: string;

beforeEach(async () => {
  healthy = await startReceiver();
  healthy.answer = () => 200;
  refusing = await startReceiver();
  sandbox = await startSandbox({
    port: 0,
    recordings: 0,
    rateLimit: 0,
    deliveryAttempts: 2,
    deliveryBackoffMs: 50,
    deliveryTimeoutMs: 5000,
  });
  configDir = mkdtempSync(join(tmpdir(), 'rfs-watch-'));
});
afterEach(async () => {
  await sandbox.close();
  await healthy.close();
  await refusing.close();
  rmSync(configDir, { recursive: true, force: true });
});

it('prints each status change once, as the sandbox made it, and exits 130 on Ctrl-C', async () => {
  const subs = {
    healthy: (
      (await api(sandbox, 'POST', '/webhooks', { url: healthy.url, events: ['recording.completed'] }, 'w-healthy')) as {
        data: { id: string };
      }
    ).data.id,
    refusing: (
      (await api(sandbox, 'POST', '/webhooks', { url: refusing.url, events: ['recording.completed'] }, 'w-refusing')) as {
        data: { id: string };
      }
    ).data.id,
  };
  await sandbox.control.clearRequests();
  const t = bufferIO({
    env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl, NO_COLOR: '1' },
  });
  const controller = new AbortController();
  const done = runCli(['deliveries', 'watch', '--interval', '0.1', '--budget', '120', '-o', 'ndjson'], t.io, { signal: controller.signal });
  const all = (): (Line | { type: 'subscription'; time: string; subscriptionId: string; state: string })[] =>
    t
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  const lines = (): Line[] => all().filter((l): l is Line => l.type === 'delivery');
  const lastTo = (id: string): string | undefined =>
    lines()
      .filter((l) => l.id === id)
      .at(-1)?.to;

  // The first poll (its SUCCEEDED list) is the baseline: nothing exists yet.
  await until('the first poll', async () => (await sandbox.control.requests()).some((r) => r.query.includes('status=SUCCEEDED')));
  for (const title of ['One', 'Two']) {
    const rec = await sandbox.control.createRecording({ title, status: 'REVIEW_PENDING' });
    await sandbox.control.setStatus(rec.id, 'COMPLETED');
  }
  const state = async () =>
    (await api(sandbox, 'GET', '/webhooks/deliveries?limit=50')) as { data: { id: string; status: string; subscriptionId: string }[] };
  await until('2 FAILED and 2 SUCCEEDED', async () => {
    const { data } = await state();
    return data.length === 4 && data.every((d) => d.status !== 'PENDING');
  });
  await until('the stream to reach them', async () => (await state()).data.every((d) => lastTo(d.id) === d.status));

  // The receiver back, one FAILED delivery replayed: FAILED → PENDING? → SUCCEEDED.
  refusing.answer = () => 200;
  const replayed = (await state()).data.find((d) => d.status === 'FAILED')?.id ?? '';
  await api(sandbox, 'POST', `/webhooks/deliveries/${replayed}/replay`, undefined);
  await until('the replay to succeed and be seen', async () => lastTo(replayed) === 'SUCCEEDED');
  controller.abort();
  expect(await done).toBe(130);
  // A watch runs until it is stopped: nothing was left unfinished (cli.md, deliveries watch).
  expect(t.stderr().trimEnd().split('\n').at(-2)).toBe('interrupted (Ctrl-C): watch stopped');

  const final = (await state()).data;
  expect(final).toHaveLength(4);
  const polls = (await sandbox.control.requests()).filter((r) => r.path === '/api/v1/webhooks/deliveries' && r.method === 'GET');
  for (const d of final) {
    const mine = lines().filter((l) => l.id === d.id);
    const attempts = await sandbox.control.deliveryAttempts(d.id);
    // A chain: first seen as new, each line from the status before it, never a line without a change.
    expect(mine[0]?.from).toBeNull();
    mine.forEach((l, i) => {
      if (i > 0) expect(l.from).toBe(mine[i - 1]?.to);
      expect(l.to).not.toBe(l.from);
      expect(l.subscriptionId).toBe(d.subscriptionId);
      // Reported after a poll of the deliveries list that the sandbox answered.
      expect(polls.some((p) => Date.parse(p.time) <= Date.parse(l.time) + 5)).toBe(true);
      const before = attempts.filter((a) => Date.parse(a.at) <= Date.parse(l.time));
      const latest = before.at(-1);
      if (l.to === 'SUCCEEDED') expect(latest?.responseStatus).toBe(200);
      if (l.to === 'FAILED') {
        // Every attempt of the round failed, the last one's error is the line's.
        expect(before.length).toBeGreaterThanOrEqual(2);
        expect(latest?.error).toBe(l.lastError);
      }
    });
    // Seen once each: one SUCCEEDED at most, FAILED once for each refusing delivery.
    expect(mine.filter((l) => l.to === 'SUCCEEDED').length).toBe(d.status === 'SUCCEEDED' ? 1 : 0);
    const refused = d.subscriptionId === subs.refusing;
    expect(mine.filter((l) => l.to === 'FAILED').length).toBe(refused ? 1 : 0);
    expect(mine.at(-1)?.to).toBe(d.status);
    if (!refused) expect(attempts.every((a) => a.responseStatus === 200)).toBe(true);
  }
  expect(lines().filter((l) => !final.some((d) => d.id === l.id))).toEqual([]);
  // The refusing subscription's first failure set its state (nothing was known before it); the
  // replay that succeeded is its recovery, one line, after the delivery's own.
  const events = all().filter((l) => l.type === 'subscription');
  expect(events).toEqual([{ type: 'subscription', time: expect.any(String), subscriptionId: subs.refusing, state: 'recovered' }]);
  const recovered = t.stdout().indexOf('"type":"subscription"');
  expect(t.stdout().lastIndexOf(`"id":"${replayed}"`)).toBeLessThan(recovered);
  expect(t.stderr()).toMatch(/^watching deliveries every 2 s \(4 requests a poll, budget 120 a minute\); Ctrl-C to stop$/m);
});

it('stops after --max-time with exit 0, polling every --interval on the clock when the budget allows it', async () => {
  const t = bufferIO({
    env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl, NO_COLOR: '1' },
  });
  const time = fakeTime();
  // 4 requests a poll (the subscriptions, then PENDING, SUCCEEDED, FAILED): 120 a minute allows one every 2 s.
  const code = await runCli(['deliveries', 'watch', '--interval', '3', '--budget', '120', '--max-time', '10'], t.io, { clock: time.clock });
  expect(code).toBe(0);
  expect(time.waits).toEqual([3000, 3000, 3000, 1000]);
  expect(t.stdout()).toBe('');
  expect(t.stderr()).toBe('watching deliveries every 3 s (4 requests a poll, budget 120 a minute); Ctrl-C to stop\n');
  const budgeted = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
  const slower = fakeTime();
  expect(await runCli(['deliveries', 'watch', '--interval', '1', '--max-time', '60'], budgeted.io, { clock: slower.clock })).toBe(0);
  // The default budget, 12 a minute: the interval shown is the one kept (a poll of 4 every
  // 61 s / 3, the window a second wider than the server's minute: budget.ts; then the rest of the 60 s).
  expect(slower.waits).toEqual([20_334, 20_334, 19_332]);
  expect(budgeted.stderr()).toBe('watching deliveries every 20 s (4 requests a poll, budget 12 a minute); Ctrl-C to stop\n');
  const bad = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
  expect(await runCli(['deliveries', 'watch', '--interval', '0'], bad.io)).toBe(2);
  expect(bad.stderr()).toContain('invalid --interval "0"');
  for (const budget of ['0', '121', '1.5']) {
    const refused = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
    expect(await runCli(['deliveries', 'watch', '--budget', budget], refused.io)).toBe(2);
    expect(refused.stderr()).toContain(`invalid --budget "${budget}": expected a whole number from 1 to 120`);
  }
});

it('keeps to its budget however short the interval: never more than --budget requests in any 60 s', async () => {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
  const time = fakeTime();
  // Every attempt, on the run's clock, as the client announces them.
  const at: number[] = [];
  const record = (): void => {
    at.push(time.now);
  };
  const ch = channel(ATTEMPT_CHANNEL);
  ch.subscribe(record);
  try {
    expect(
      await runCli(['deliveries', 'watch', '--interval', '0.1', '--budget', '10', '--max-time', '300'], t.io, { clock: time.clock }),
    ).toBe(0);
  } finally {
    ch.unsubscribe(record);
  }
  // 300 s at 10 a minute: about 50, and never 11 within 60 s.
  expect(at.length).toBeGreaterThanOrEqual(44);
  for (const start of at) expect(at.filter((a) => a >= start && a < start + 60_000).length).toBeLessThanOrEqual(10);
  expect(t.stderr()).toBe('watching deliveries every 24 s (4 requests a poll, budget 10 a minute); Ctrl-C to stop\n');
});
