// Replays in flight are bounded on the server (cli.md, webhooks listen --inspect: Bounds), for a
// script as for the page: one per delivery (409) and a few in all (429 with Retry-After), so that
// many requests at a slow --forward-to target hold neither hundreds of requests nor their sockets.
// The target is a scenario server whose answers never end until it is closed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_REPLAYS_IN_FLIGHT } from '../../src/inspector/server.js';
import { type ScenarioServer, startScenarioServer } from '../helpers/scenario-server.js';
import { delivery, entryOf, type Listener, post, replayApi, startListen, swapCode, waitFor } from './support.js';

let work: string;
let target: ScenarioServer;
let listen: Listener;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-replays-'));
  target = await startScenarioServer();
  listen = await startListen(work, { forwardTo: `${target.url}/hooks` });
}, 30_000);
afterAll(async () => {
  await listen?.stop();
  await target?.close();
  rmSync(work, { recursive: true, force: true });
});

it('keeps one replay per delivery and a few in all in flight: a second is a 409, one past the cap a 429 with Retry-After', async () => {
  const count = MAX_REPLAYS_IN_FLIGHT + 1;
  // Each delivery's own forward is answered at once; then each replay's answer never ends.
  target.queue(...Array.from({ length: count }, () => ({ status: 200, body: { ok: true } })));
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    expect(await post(listen.receiverUrl, delivery(`dlv_flight_${i}`))).toBe(200);
    ids.push((await entryOf(listen.inspectorUrl, `dlv_flight_${i}`)).id);
  }
  target.queue(...Array.from({ length: MAX_REPLAYS_IN_FLIGHT }, () => ({ status: 200, endless: true })));
  const { cookie } = await swapCode(listen.pageUrl);

  const first = replayApi(listen.inspectorUrl, ids[0] as string, { resign: false });
  await waitFor('the first replay at the target', () => (target.requests.length === count + 1 ? true : undefined));
  for (const input of [{ resign: false }, { resign: true, cookie }, { body: '{"edited":true}', cookie }]) {
    const again = await replayApi(listen.inspectorUrl, ids[0] as string, input);
    expect(again.status, JSON.stringify(input)).toBe(409);
    expect(again.json.error).toMatch(/a replay of delivery \d+ is in flight: wait for its answer/);
  }

  const others = ids.slice(1, MAX_REPLAYS_IN_FLIGHT).map((id) => replayApi(listen.inspectorUrl, id, { resign: false }));
  await waitFor('every replay at the target', () => (target.requests.length === count + MAX_REPLAYS_IN_FLIGHT ? true : undefined));
  const past = await fetch(`${listen.inspectorUrl}api/deliveries/${ids[count - 1]}/replay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"resign": false}',
  });
  expect(past.status).toBe(429);
  expect(Number(past.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(((await past.json()) as { error: string }).error).toMatch(new RegExp(`${MAX_REPLAYS_IN_FLIGHT} replays are in flight`));
  // Refused before anything was sent.
  expect(target.requests.length).toBe(count + MAX_REPLAYS_IN_FLIGHT);

  // The target goes away: every replay in flight ends with its error, and the bounds are free again.
  await target.close();
  const ended = await Promise.all([first, ...others]);
  expect(ended.map((a) => a.status)).toEqual(Array.from({ length: MAX_REPLAYS_IN_FLIGHT }, () => 200));
  expect((await replayApi(listen.inspectorUrl, ids[count - 1] as string, { resign: false })).status).toBe(200);
  expect((await replayApi(listen.inspectorUrl, ids[0] as string, { resign: false })).status).toBe(200);
});
