// A stale delivery (the HMAC matched, the timestamp is outside the tolerance) is refused for
// replay and re-sign like any delivery that did not verify (cli.md, Trust: valid and duplicate
// only), and the refusal says what is true of it: signed with the right secret, but too old, so
// kept as received only, and why (a stale body may be a captured old delivery sent again).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { delivery, entryOf, type Listener, post, replayApi, startApp, startListen, swapCode } from './support.js';

let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
let listen: Listener;
/** The page's cookie: re-signing needs it, so the refusal below is the stale one, not the missing cookie's. */
let cookie: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-stale-'));
  app = await startApp();
  listen = await startListen(work, { forwardTo: app.url });
  cookie = (await swapCode(listen.pageUrl)).cookie;
}, 30_000);
afterAll(async () => {
  await listen?.stop();
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

it('refuses a stale delivery for replay, re-sign and edit, saying it was signed with the right secret but is too old', async () => {
  // An hour old: outside the default tolerance (300 s), signed with the listener's secret.
  const old = Math.floor(Date.now() / 1000) - 3600;
  expect(await post(listen.receiverUrl, delivery('dlv_stale_replay', { timestamp: old }))).toBe(401);
  const stale = await entryOf(listen.inspectorUrl, 'dlv_stale_replay');
  expect(stale).toMatchObject({ verdict: 'stale', replayable: false });
  const atApp = app.received.length;
  for (const input of [{ resign: false }, { resign: true, cookie }, { body: '{"edited":true}', cookie }]) {
    const answer = await replayApi(listen.inspectorUrl, stale.id, input);
    expect(answer.status, JSON.stringify(input)).toBe(409);
    expect(answer.json.error).toMatch(/signed with the right secret, but its timestamp is outside the tolerance/);
    expect(answer.json.error).toMatch(/kept as received only/);
    expect(answer.json.error).toMatch(/captured and sent again/);
    // Not the words for a body anyone could have POSTed: this one came signed with the secret.
    expect(answer.json.error).not.toMatch(/what anyone could POST/);
  }
  expect(app.received.length).toBe(atApp);
});
