// The inspector's memory under load (cli.md, webhooks listen --inspect: Bounds): the listener
// stays alive and within its memory while 300 re-signed replays of one delivery, whose app
// answers 70 KB, run at once (the forward and the newest replays kept, history writes
// coalesced), and while 3 event-stream clients that never read watch 60 refused bodies of
// 900 KB arrive (refused bodies cut, a client that does not read dropped). Peak resident memory
// (VmHWM) of the rfs process, Linux only. And while 150 deliveries get 25 edited replays of
// 64 KiB each, whose app answers 64 KiB: what it keeps stays within its 40 MiB (kept-bytes.ts),
// the oldest bodies dropped first and marked.
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LINUX, needs } from '../helpers/platform.js';
import { send } from '../commands/webhooks/listen/support.js';
import { delivery, entryOf, type Listener, list, peakRssMb, post, startApp, startListen, swapCode } from '../inspector/support.js';

let work: string;
let app: Awaited<ReturnType<typeof startApp>> | undefined;
let listen: Listener | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-memory-'));
});
afterEach(async () => {
  await listen?.stop();
  await app?.close();
  listen = undefined;
  app = undefined;
  rmSync(work, { recursive: true, force: true });
});

it.skipIf(!LINUX.met)(
  needs(LINUX, 'stays alive and under 300 MB through 300 concurrent re-signed replays of a delivery whose app answers 70 KB'),
  async () => {
    const answer = JSON.stringify({ pad: 'a'.repeat(70 * 1024) });
    app = await startApp(() => answer);
    listen = await startListen(work, { forwardTo: app.url });
    expect(await post(listen.receiverUrl, delivery('dlv_soak_replays'))).toBe(201);
    const entry = await entryOf(listen.inspectorUrl, 'dlv_soak_replays');
    const url = `${listen.inspectorUrl}api/deliveries/${entry.id}/replay`;
    const { cookie } = await swapCode(listen.pageUrl);
    const replay = async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"resign":true}' });
      const json = (await res.json()) as { data?: { response: { status: number | null; error: string | null } } };
      return { status: res.status, app: json.data?.response.status ?? null, error: json.data?.response.error ?? null };
    };
    // 300 at once: those that come while one is in flight are refused (one replay of a delivery at a time).
    const burst = await Promise.all(Array.from({ length: 300 }, replay));
    const sent = burst.filter((a) => a.status === 200).length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent + burst.filter((a) => a.status === 409).length).toBe(300);
    // Then 300 one after another, each answered.
    const answers: Awaited<ReturnType<typeof replay>>[] = [];
    for (let i = 0; i < 300; i++) answers.push(await replay());
    expect(answers.filter((a) => a.status === 200).length).toBe(300);
    // Each replay reached the app, or says why not (its 10 s limit on a loaded machine): none lost.
    const answered = answers.filter((a) => a.app === 201).length;
    console.log(
      `replays answered by the app: ${answered} of 300; without an answer: ${[...new Set(answers.filter((a) => a.app === null).map((a) => a.error))].join(', ')}`,
    );
    expect(answers.every((a) => a.app === 201 || (a.app === null && a.error !== null))).toBe(true);
    expect(app.received.length).toBeGreaterThanOrEqual(1 + answered);
    // Alive: it still answers, and keeps the forward and the newest replays only.
    expect((await fetch(`${listen.receiverUrl}/healthz`)).status).toBe(200);
    const detail = (await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}`)).json()) as { data: { exchanges: unknown[] } };
    expect(detail.data.exchanges.length).toBe(20);
    const peak = peakRssMb(listen.pid);
    console.log(`inspector, 300 concurrent re-signed replays of a 70 KB answer: peak RSS ${peak.toFixed(0)} MB (Node ${process.version})`);
    expect(peak).toBeLessThan(300);
  },
  180_000,
);

it.skipIf(!LINUX.met)(
  needs(LINUX, 'stays under 400 MB with 3 stalled event-stream clients while 60 refused bodies of 900 KB arrive'),
  async () => {
    listen = await startListen(work);
    const { port, host } = new URL(listen.inspectorUrl);
    const stalled: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /api/events HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
      // Never read: what the server writes stays in its buffers, or the client is dropped.
      socket.pause();
      socket.on('error', () => undefined);
      stalled.push(socket);
    }
    try {
      const body = Buffer.alloc(900 * 1024, 'b');
      for (let i = 0; i < 60; i++) {
        expect(await post(listen.receiverUrl, delivery(`dlv_soak_refused_${i}`, { body, signature: null }))).toBe(401);
      }
      await entryOf(listen.inspectorUrl, 'dlv_soak_refused_59');
      expect((await fetch(`${listen.receiverUrl}/healthz`)).status).toBe(200);
      const peak = peakRssMb(listen.pid);
      console.log(`inspector, 3 stalled streams and 60 refused 900 KB bodies: peak RSS ${peak.toFixed(0)} MB (Node ${process.version})`);
      expect(peak).toBeLessThan(400);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  },
  180_000,
);

it.skipIf(!LINUX.met)(
  needs(
    LINUX,
    'stays under 300 MB through 150 deliveries × 25 edited replays of 64 KiB whose app answers 64 KiB, the oldest bodies dropped and marked',
  ),
  async () => {
    const answer = JSON.stringify({ pad: 'a'.repeat(64 * 1024 - 12) });
    app = await startApp(() => answer);
    const started = await startListen(work, { forwardTo: app.url });
    listen = started;
    const { cookie } = await swapCode(started.pageUrl);
    const ids: string[] = [];
    for (let n = 0; n < 150; n++) {
      expect(await post(started.receiverUrl, delivery(`dlv_soak_edit_${n}`))).toBe(201);
      ids.push((await entryOf(started.inspectorUrl, `dlv_soak_edit_${n}`)).id);
    }
    // Five deliveries at a time, each replayed 25 times one after the other.
    for (let at = 0; at < ids.length; at += 5) {
      await Promise.all(
        ids.slice(at, at + 5).map(async (id, k) => {
          for (let r = 0; r < 25; r++) {
            const edited = JSON.stringify({ id: `dlv_soak_edit_${at + k}`, pad: String(r % 10).repeat(64 * 1024 - 64) });
            // A connection per request (send's default): a kept-alive one that the server closes as the
            // next request goes out (its keep-alive timeout, under load) would be a reset of the test's making.
            const sent = await send(`${started.inspectorUrl}api/deliveries/${id}/replay-edited`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', cookie },
              body: JSON.stringify({ body: edited }),
            }).catch((error: unknown) => {
              const alive = started.child.exitCode === null && started.child.signalCode === null;
              throw new Error(`replay ${r} of ${id}: ${String(error)}; rfs ${alive ? 'alive' : 'gone'}: ${started.stderr().slice(-1000)}`);
            });
            expect(sent.status, sent.text).toBe(200);
          }
        }),
      );
    }
    expect((await fetch(`${started.receiverUrl}/healthz`)).status).toBe(200);
    expect((await list(started.inspectorUrl)).length).toBe(150);
    const detail = async (id: string) =>
      (
        (await (await fetch(`${started.inspectorUrl}api/deliveries/${id}`)).json()) as {
          data: { exchanges: { dropped: boolean; response: { body: string | null } }[] };
        }
      ).data;
    // The oldest replays lost their bodies, marked; the newest keep theirs.
    const oldest = await detail(ids[0] as string);
    expect(oldest.exchanges.length).toBe(20);
    expect(oldest.exchanges.every((e) => e.dropped)).toBe(true);
    const newest = await detail(ids.at(-1) as string);
    expect(newest.exchanges.at(-1)).toMatchObject({ dropped: false, response: { body: answer } });
    const peak = peakRssMb(started.pid);
    console.log(
      `inspector, 150 deliveries × 25 edited replays of 64 KiB (answers 64 KiB): peak RSS ${peak.toFixed(0)} MB (Node ${process.version})`,
    );
    expect(peak).toBeLessThan(300);
    // A restart on the same history lists what was listed, the newest replay's answer with it.
    const listed = (await list(started.inspectorUrl)).map((s) => s.deliveryId);
    await started.stop();
    listen = undefined;
    const again = await startListen(work, { forwardTo: app.url });
    listen = again;
    expect((await list(again.inspectorUrl)).map((s) => s.deliveryId)).toEqual(listed);
    const newestAgain = (await (await fetch(`${again.inspectorUrl}api/deliveries/${ids.at(-1)}`)).json()) as {
      data: { exchanges: { dropped: boolean; response: { body: string | null } }[] };
    };
    expect(newestAgain.data.exchanges.at(-1)).toMatchObject({ dropped: false, response: { body: answer } });
    console.log(`inspector, restart on that history: peak RSS ${peakRssMb(again.pid).toFixed(0)} MB (Node ${process.version})`);
  },
  900_000,
);
