// The inspector's JSON API and event stream as a script sees them (cli.md, webhooks listen
// --inspect: Bounds, the same data as JSON, /healthz): bad paths and large requests answered
// with their 4xx, every kept thing bounded, the stream numbered and resumable, a history that
// another program damaged read back safely, and no key or secret that a sender put in a delivery.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInspector } from '../../src/inspector/server.js';
import type { InspectorSource } from '../../src/inspector/source.js';
import type { DeliverySummary } from '../../src/inspector/model.js';
import { RFS_BIN } from '../helpers/child.js';
import {
  delivery,
  entryOf,
  type Listener,
  list,
  listenEnv,
  post,
  replayApi,
  SECRET,
  startApp,
  startListen,
  swapCode,
  waitFor,
} from './support.js';

let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
let listen: Listener;
/** The page's cookie (re-signing needs it). */
let cookie: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-api-'));
  app = await startApp();
  listen = await startListen(work, { forwardTo: app.url });
  cookie = (await swapCode(listen.pageUrl)).cookie;
}, 30_000);
afterAll(async () => {
  await listen?.stop();
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

/** An event-stream connection read as text; `lastEventId` sent when given. */
function stream(url: string, lastEventId?: string): { text: () => string; close(): void; status: Promise<number> } {
  let text = '';
  let status: (code: number) => void = () => undefined;
  const req = request(`${url}api/events`, { headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } }, (res) => {
    status(res.statusCode ?? 0);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { text: () => text, close: () => req.destroy(), status: new Promise((resolve) => (status = resolve)) };
}

describe('answers', () => {
  it('answers a malformed %-escape with 400, not 500', async () => {
    const res = await fetch(`${listen.inspectorUrl}api/deliveries/%ZZ`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/%-escape/);
  });

  it('answers a replay request over 16 KiB with its 413 (read, not a reset connection)', async () => {
    const res = await fetch(`${listen.inspectorUrl}api/deliveries/1/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resign: true, pad: 'x'.repeat(17 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toMatch(/larger than 16384 bytes/);
  });

  it('answers GET /healthz on the listener with 200 once it accepts deliveries', async () => {
    const res = await fetch(`${listen.receiverUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^ok/);
    // Only that path: any other GET is still not a delivery.
    expect((await fetch(`${listen.receiverUrl}/`)).status).toBe(405);
  });
});

describe('bounds', () => {
  it('keeps a refused body cut to 16 KiB, with its size', async () => {
    const body = Buffer.alloc(900 * 1024, 'a');
    expect(await post(listen.receiverUrl, delivery('dlv_api_big_refused', { body, signature: null }))).toBe(401);
    const entry = await entryOf(listen.inspectorUrl, 'dlv_api_big_refused');
    const detail = (await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}`)).json()) as {
      data: { request: { body: string; bodyBytes: number; bodyTruncated: boolean } };
    };
    expect(detail.data.request.body.length).toBe(16 * 1024);
    expect(detail.data.request).toMatchObject({ bodyBytes: 900 * 1024, bodyTruncated: true });
  });

  it('cuts the texts of the list', async () => {
    expect(await post(listen.receiverUrl, delivery('dlv_api_long_title', { title: 't'.repeat(10_000) }))).toBe(201);
    const entry = await entryOf(listen.inspectorUrl, 'dlv_api_long_title');
    expect(entry.title?.length).toBe(200);
    expect(entry.title?.endsWith('…')).toBe(true);
  });

  it('keeps the forward and the newest replays, 20 exchanges in all', async () => {
    expect(await post(listen.receiverUrl, delivery('dlv_api_many_replays'))).toBe(201);
    const entry = await entryOf(listen.inspectorUrl, 'dlv_api_many_replays');
    for (let i = 0; i < 25; i++) expect((await replayApi(listen.inspectorUrl, entry.id, { resign: i % 2 === 0, cookie })).status).toBe(200);
    const detail = (await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}`)).json()) as {
      data: { exchanges: { label: string }[] };
    };
    expect(detail.data.exchanges.length).toBe(20);
    expect(detail.data.exchanges[0]?.label).toBe('forward');
    // The list shows the latest replay apart from the forward's answer.
    const row = (await list(listen.inspectorUrl)).find((s) => s.id === entry.id);
    expect(row?.target?.status).toBe(201);
    expect(row?.replay?.label).toBe('replay re-signed');
  });
});

describe('the event stream', () => {
  it('numbers its events, and a reconnect with Last-Event-ID gets what it missed', async () => {
    const first = stream(listen.inspectorUrl);
    expect(await first.status).toBe(200);
    expect(await post(listen.receiverUrl, delivery('dlv_api_sse_1'))).toBe(201);
    const id = await waitFor('an id line', () => /id: (\S+)\nevent: delivery\ndata: .*dlv_api_sse_1/.exec(first.text())?.[1]);
    first.close();
    for (const n of [2, 3]) expect(await post(listen.receiverUrl, delivery(`dlv_api_sse_${n}`))).toBe(201);
    await entryOf(listen.inspectorUrl, 'dlv_api_sse_3');
    const again = stream(listen.inspectorUrl, id);
    await waitFor('the missed events', () => (again.text().includes('dlv_api_sse_3') ? true : undefined));
    const events = again.text().match(/event: delivery\ndata: .*/g) ?? [];
    expect(events.map((e) => /dlv_api_sse_\d/.exec(e)?.[0])).toEqual(['dlv_api_sse_2', 'dlv_api_sse_3']);
    again.close();
    // An id of another run (a restarted listener): told to read the list again.
    const stale = stream(listen.inspectorUrl, 'feedbeef-12');
    await waitFor('a reload event', () => (stale.text().includes('event: reload') ? true : undefined));
    stale.close();
  });

  it('takes at most 32 clients at once: the next is told 503', async () => {
    const open = Array.from({ length: 32 }, () => stream(listen.inspectorUrl));
    try {
      expect(await Promise.all(open.map((s) => s.status))).toEqual(Array(32).fill(200));
      const extra = stream(listen.inspectorUrl);
      expect(await extra.status).toBe(503);
      extra.close();
    } finally {
      for (const s of open) s.close();
    }
    // Once they are gone, a client is taken again.
    await waitFor('a stream accepted again', async () => {
      const s = stream(listen.inspectorUrl);
      const code = await s.status;
      s.close();
      return code === 200 ? true : undefined;
    });
  });

  it('drops a client that does not read rather than keep what it has not read', async () => {
    // The server alone, with a source that sends 10 MB of events: a stalled reader gets a part of them, then the end.
    const listeners = new Set<(s: DeliverySummary) => void>();
    const source: InspectorSource = {
      info: () => ({ kind: 'listen', forwardTo: null, canReplay: false, canResign: false, hasRequests: false, maxDeliveries: null }),
      list: () => [],
      detail: () => undefined,
      body: () => undefined,
      replay: () => Promise.reject(new Error('no replay here')),
      curlTarget: () => undefined,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const assets = join(work, 'assets');
    mkdirSync(assets, { recursive: true });
    for (const name of ['index.html', 'app.js', 'app.css']) writeFileSync(join(assets, name), '');
    const server = await startInspector({ host: '127.0.0.1', port: 0, source, assets, redact: (text) => text });
    try {
      const { port } = new URL(server.url);
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /api/events HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
      socket.pause();
      let received = 0;
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      await waitFor('the stream to be open', () => (listeners.size > 0 ? true : undefined));
      const big = 'x'.repeat(100 * 1024);
      for (let i = 0; i < 100; i++) {
        for (const listener of listeners) {
          listener({
            id: String(i),
            at: '',
            event: null,
            deliveryId: null,
            recordingId: null,
            title: big,
            url: null,
            verdict: 'valid',
            status: 200,
            target: null,
            replay: null,
            replayable: false,
            resignable: false,
            verified: false,
          });
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      socket.resume();
      await ended;
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(100 * big.length);
    } finally {
      await server.close();
    }
  });
});

describe('the history read back', () => {
  it('skips lines that are not what their type says, and new deliveries get ids of their own', async () => {
    const dir = join(work, 'damaged');
    mkdirSync(dir);
    const history = join(dir, 'history.jsonl');
    const good = (id: string, deliveryId: string) =>
      JSON.stringify({
        id,
        at: '2026-01-02T03:04:05.000Z',
        method: 'POST',
        path: '/',
        headers: {},
        bodyBase64: '',
        deliveryId,
        event: null,
        recordingId: null,
        title: null,
        verdict: 'missing',
        status: 401,
        explanation: 'no signature',
        exchanges: [],
      });
    writeFileSync(
      history,
      [
        good('1', 'dlv_kept_1'),
        good('2', 'dlv_kept_2').replace('"exchanges":[]', '"exchanges":[null]'),
        good('Infinity', 'dlv_infinite'),
        good('3', 'dlv_kept_3'),
        '',
      ].join('\n'),
    );
    const other = await startListen(dir, { history });
    try {
      expect(other.stderr()).toMatch(/2 damaged line\(s\): skipped/);
      expect((await list(other.inspectorUrl)).map((s) => s.deliveryId)).toEqual(['dlv_kept_3', 'dlv_kept_1']);
      for (const n of [1, 2]) expect(await post(other.receiverUrl, delivery(`dlv_after_${n}`, { signature: null }))).toBe(401);
      await entryOf(other.inspectorUrl, 'dlv_after_2');
      const after = await list(other.inspectorUrl);
      expect(after.map((s) => s.deliveryId)).toEqual(['dlv_after_2', 'dlv_after_1', 'dlv_kept_3', 'dlv_kept_1']);
      expect(after.map((s) => s.id)).toEqual(['5', '4', '3', '1']);
    } finally {
      await other.stop();
    }
  });

  it.each([
    ['a folder', (dir: string) => dir],
    [
      'a FIFO',
      (dir: string) => {
        spawnSync('mkfifo', [join(dir, 'fifo')]);
        return join(dir, 'fifo');
      },
    ],
  ])('refuses a --history that is %s: exit 2, said', (_name, make) => {
    const dir = mkdtempSync(join(work, 'path-'));
    const path = make(dir);
    const run = spawnSync(process.execPath, [RFS_BIN, 'webhooks', 'listen', '--port', '0', '--inspect', '127.0.0.1:0', '--history', path], {
      env: { PATH: process.env.PATH, ...listenEnv(dir) },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain('is not a regular file');
    expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
  });
});

describe('a history damaged in its tail', () => {
  // Its first line is a delivery, then 3 GiB of zeros (sparse): the tail read finds no line at
  // all. Written anew, it was 0 bytes and the delivery gone, without a word.
  it('is set aside, said on stderr, and a new history starts: nothing in it is lost', async () => {
    const dir = mkdtempSync(join(work, 'zeros-'));
    const history = join(dir, 'history.jsonl');
    const first = `${JSON.stringify({
      id: '1',
      at: '2026-01-02T03:04:05.000Z',
      method: 'POST',
      path: '/',
      headers: {},
      bodyBase64: '',
      deliveryId: 'dlv_before_the_zeros',
      event: null,
      recordingId: null,
      title: null,
      verdict: 'missing',
      status: 401,
      explanation: 'no signature',
      exchanges: [],
    })}\n`;
    writeFileSync(history, first, { mode: 0o600 });
    truncateSync(history, 3 * 1024 ** 3);
    const listener = await startListen(dir, { history });
    try {
      const said =
        /the history (\S+) is damaged: no delivery could be read from its end; it was set aside as (\S+) \(nothing in it is lost\)/.exec(
          listener.stderr(),
        );
      expect(said, listener.stderr()).not.toBeNull();
      const aside = (said as RegExpExecArray)[2] as string;
      expect(aside).toMatch(/history\.jsonl\.unreadable-/);
      // The damaged file whole, under its new name; the history is a new one.
      expect(statSync(aside).size).toBe(3 * 1024 ** 3);
      const head = Buffer.alloc(first.length);
      const fd = openSync(aside, 'r');
      readSync(fd, head, 0, head.length, 0);
      closeSync(fd);
      expect(head.toString('utf8')).toBe(first);
      expect(await list(listener.inspectorUrl)).toEqual([]);
      expect(statSync(history).size).toBe(0);
    } finally {
      await listener.stop();
    }
  });
});

describe('a --history that is no file rfs can keep', () => {
  // Each refused as /dev/zero is: exit 2, said, never "a bug in rfs".
  it.each([
    ['/proc/self/environ', '/proc/self/environ', /the history \/proc\/self is not a folder/],
    ["this test's /proc/<pid>/environ", `/proc/${process.pid}/environ`, /the history \/proc\/\d+\/environ cannot be written/],
    ['/dev/zero', '/dev/zero', /the history \/dev\/zero is not a regular file/],
  ])('refuses %s with exit 2', (_name, path, said) => {
    const dir = mkdtempSync(join(work, 'proc-'));
    const run = spawnSync(process.execPath, [RFS_BIN, 'webhooks', 'listen', '--port', '0', '--inspect', '127.0.0.1:0', '--history', path], {
      env: { PATH: process.env.PATH, ...listenEnv(dir) },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(said);
    expect(run.stderr).not.toContain('bug in rfs');
  });
});

describe('a --history that is not a history', () => {
  it('refuses a notes file with exit 2 and leaves it as it was', () => {
    const dir = mkdtempSync(join(work, 'notes-'));
    const notes = join(dir, 'notes.txt');
    const text = 'call the client on Monday\n';
    writeFileSync(notes, text, { mode: 0o600 });
    const run = spawnSync(
      process.execPath,
      [RFS_BIN, 'webhooks', 'listen', '--port', '0', '--inspect', '127.0.0.1:0', '--history', notes],
      {
        env: { PATH: process.env.PATH, ...listenEnv(dir) },
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`the history ${notes} is not an rfs history (its first line is not one)`);
    expect(readFileSync(notes, 'utf8')).toBe(text);
  });
});

describe('secrets in a delivery', () => {
  // What only looks like a key or a secret is the sender's text, and goes as it came; the
  // listener's own secret (SECRET, which the sender had) never reaches the page.
  const lookalikeKey = 'service_pk_live_inspectorLookalike0123456789wxyz';
  const lookalikeSecret = 'whsec_notTheListenersSecret0123456789abcdef';

  it("keep the listener's own secret out of every answer (list, detail, event stream), and refuse to export a body that holds it", async () => {
    const events = stream(listen.inspectorUrl);
    const sent = delivery('dlv_api_own_secret', {
      body: JSON.stringify({ leaked: SECRET, data: { title: `secret ${SECRET}` } }),
      signature: null,
    });
    sent.headers['x-service-note'] = SECRET;
    expect(await post(listen.receiverUrl, sent)).toBe(401);
    const entry = await entryOf(listen.inspectorUrl, 'dlv_api_own_secret');
    await waitFor('the event', () => (events.text().includes('dlv_api_own_secret') ? true : undefined));
    events.close();
    const texts = [
      await (await fetch(`${listen.inspectorUrl}api/deliveries`)).text(),
      await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}`)).text(),
      events.text(),
    ];
    for (const text of texts) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain('whsec_…');
    }
    const body = await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}/body`);
    expect(body.status).toBe(409);
    expect(await body.text()).not.toContain(SECRET);
  });

  it('pass text that only looks like a key or a secret as it came: list, detail, fixture, event stream', async () => {
    const events = stream(listen.inspectorUrl);
    const body = JSON.stringify({ key: lookalikeKey, secret: lookalikeSecret, data: { title: `key ${lookalikeKey}` } });
    expect(await post(listen.receiverUrl, delivery('dlv_api_lookalike', { body }))).toBe(201);
    const entry = await entryOf(listen.inspectorUrl, 'dlv_api_lookalike');
    await waitFor('the event', () => (events.text().includes('dlv_api_lookalike') ? true : undefined));
    events.close();
    const detail = (await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}`)).json()) as {
      data: { request: { body: string }; title: string };
    };
    expect(detail.data.request.body).toBe(body);
    expect(detail.data.title).toBe(`key ${lookalikeKey}`);
    expect(await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}/body`)).text()).toBe(body);
    expect(events.text()).toContain(lookalikeKey);
  });
});
