// `rfs webhooks listen` run in-process through runCli, receiving real deliveries from the
// in-process sandbox: a subscription points at the listener, a recording is completed, and the
// sandbox's signed POST arrives. Tampered copies of a real delivery are sent by the test.
import { execFile } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { bufferIO, type BufferIO } from '../../../helpers/io.js';
import { eventually, start, startReceiver, type Harness, type Receiver } from '../../../sandbox/helpers.js';
import { accepts, canBind, freePort, hmacHex, send, signed } from './support.js';

interface Listener {
  t: BufferIO;
  port: number;
  url: string;
  controller: AbortController;
  done: Promise<number>;
  /** The stdout lines so far, parsed as JSON. */
  lines(): Record<string, unknown>[];
}

let h: Harness;
let listeners: Listener[] = [];
const targets: Receiver[] = [];
let n = 0;

beforeEach(async () => {
  // One attempt per delivery: a refused one becomes FAILED at once instead of being retried.
  h = await start({ rateLimit: 0, deliveryAttempts: 1, deliveryBackoffMs: 30 });
});
afterEach(async () => {
  for (const l of listeners.splice(0)) l.controller.abort();
  await Promise.all(listeners.map((l) => l.done));
  listeners = [];
  await Promise.all(targets.splice(0).map((t) => t.close()));
  await h.close();
});

/** Starts `rfs webhooks listen …` and resolves once it says where it listens. */
async function listen(argv: string[], o: { env: NodeJS.ProcessEnv; stdoutIsTTY?: boolean; columns?: number }): Promise<Listener> {
  const t = bufferIO({ env: o.env, stdoutIsTTY: o.stdoutIsTTY ?? false, columns: o.columns ?? 80 });
  const controller = new AbortController();
  // The sandbox signs with the real clock, so the listener checks against it too.
  const done = runCli(['webhooks', 'listen', ...argv], t.io, { signal: controller.signal });
  let exited: number | undefined;
  void done.then((code) => (exited = code));
  const port = await eventually(async () => {
    if (exited !== undefined) throw new Error(`listen exited ${exited} before listening: ${t.stderr()}`);
    const match = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(t.stderr());
    return match ? Number(match[1]) : undefined;
  });
  const listener: Listener = {
    t,
    port,
    url: `http://127.0.0.1:${port}`,
    controller,
    done,
    lines: () =>
      t
        .stdout()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
  listeners.push(listener);
  return listener;
}

async function stop(l: Listener): Promise<number> {
  l.controller.abort();
  listeners = listeners.filter((x) => x !== l);
  return l.done;
}

async function subscribe(url: string): Promise<{ id: string; secret: string }> {
  const res = await h.api('/webhooks', {
    body: { url, events: ['recording.completed'] },
    headers: { 'idempotency-key': `listen-test-${++n}` },
  });
  expect(res.status).toBe(201);
  return res.json.data;
}

/**
 * A listener that holds the subscription's secret. The secret exists only once the subscription
 * does, and the subscription needs the listener's URL: a first listener on port 0 finds a port,
 * the subscription is made for it, and the real listener takes that port over.
 */
async function subscribedListener(
  argv: string[] = [],
  o: { stdoutIsTTY?: boolean; columns?: number } = {},
): Promise<{ l: Listener; secret: string; firstExit: number }> {
  const first = await listen(['--port', '0'], { env: { RFS_WEBHOOK_SECRET: 'whsec_placeholder' } });
  const sub = await subscribe(`${first.url}/hooks`);
  const firstExit = await stop(first);
  const l = await listen(['--port', String(first.port), ...argv], { env: { LISTEN_SECRET: sub.secret }, ...o });
  return { l, secret: sub.secret, firstExit };
}

async function complete(title: string): Promise<string> {
  const created = await h.control('/recordings', { title, status: 'REVIEW_PENDING' });
  expect(created.status).toBe(201);
  const id = created.json.data.id as string;
  expect((await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' })).status).toBe(200);
  return id;
}

interface Attempt {
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatus: number | null;
}

/** The sandbox's one delivery, once it has been attempted, with that attempt. */
async function attempted(): Promise<{ id: string; status: string; attempt: Attempt }> {
  return eventually(async () => {
    const list = await h.api('/webhooks/deliveries');
    const d = list.json.data[0] as { id: string; status: string } | undefined;
    if (!d || d.status === 'PENDING') return undefined;
    const attempts = await h.control(`/deliveries/${d.id}/attempts`);
    const attempt = (attempts.json.data as Attempt[])[0];
    return attempt ? { id: d.id, status: d.status, attempt } : undefined;
  });
}

const secretArgs = ['--secret-env', 'LISTEN_SECRET'];

describe('webhooks listen: real deliveries from the sandbox', () => {
  it('accepts a valid delivery with 200 and prints it as one ndjson line', async () => {
    const { l, secret, firstExit } = await subscribedListener(secretArgs);
    expect(firstExit).toBe(0);
    const recordingId = await complete('Listen test');
    const delivery = await attempted();
    expect(delivery.status).toBe('SUCCEEDED');
    expect(delivery.attempt.responseStatus).toBe(200);

    const [line, ...more] = await eventually(async () => (l.lines().length > 0 ? l.lines() : undefined));
    expect(more).toEqual([]);
    expect(Object.keys(line ?? {})).toEqual(['deliveryId', 'event', 'recordingId', 'title', 'verdict', 'reason', 'status', 'duplicate']);
    expect(line).toEqual({
      deliveryId: delivery.id,
      event: 'recording.completed',
      recordingId,
      title: 'Listen test',
      verdict: 'valid',
      reason: null,
      status: 200,
      duplicate: false,
    });
    const stderr = l.t.stderr();
    expect(stderr).toBe(
      `listening on ${l.url}\nverifying with the secret from the environment variable LISTEN_SECRET, tolerance 300 s; Ctrl-C to stop\n`,
    );
    expect(await stop(l)).toBe(0);
    expect(l.t.stderr()).not.toContain(secret);
  });

  it('refuses tampered copies of a real delivery with 401, prints and logs each reason', async () => {
    const { l, secret } = await subscribedListener(secretArgs);
    await complete('Tamper test');
    const { id, attempt } = await attempted();
    const real = attempt.requestHeaders;
    const body = Buffer.from(attempt.requestBody, 'utf8');
    // The real one was accepted; now the copies.
    await eventually(async () => (l.lines().length === 1 ? true : undefined));

    const oneByte = Buffer.from(body);
    const at = oneByte.indexOf('Tamper');
    oneByte[at] = 't'.charCodeAt(0);
    const tampered = await send(`${l.url}/hooks`, { headers: real, body: oneByte });
    expect(tampered).toMatchObject({ status: 401, text: 'invalid signature: mismatch\n' });

    const old = Math.floor(Date.now() / 1000) - 3600;
    const stale = await send(`${l.url}/hooks`, {
      headers: { ...real, 'x-service-timestamp': String(old), 'x-service-signature': signed(secret, old, body) },
      body,
    });
    expect(stale).toMatchObject({ status: 401, text: 'invalid signature: stale\n' });

    const { 'x-service-signature': _dropped, ...unsigned } = real;
    const missing = await send(`${l.url}/hooks`, { headers: unsigned, body });
    expect(missing).toMatchObject({ status: 401, text: 'invalid signature: missing\n' });

    const lines = await eventually(async () => (l.lines().length === 4 ? l.lines() : undefined));
    const invalid = {
      deliveryId: id,
      event: 'recording.completed',
      title: 'Tamper test',
      verdict: 'invalid',
      status: 401,
      duplicate: false,
    };
    expect(lines.slice(1)).toEqual([
      // The changed byte is in the title: the line shows what was received, not what was signed.
      { ...invalid, recordingId: expect.stringMatching(/^rec_/), title: 'tamper test', reason: 'mismatch' },
      { ...invalid, recordingId: expect.stringMatching(/^rec_/), reason: 'stale' },
      { ...invalid, recordingId: expect.stringMatching(/^rec_/), reason: 'missing' },
    ]);

    const warnings = l.t
      .stderr()
      .split('\n')
      .filter((w) => w.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: refused delivery ${id} (HTTP 401): mismatch: the signature does not match this payload, timestamp and secret (a re-serialised body or another subscription's secret?)`,
      `warning: refused delivery ${id} (HTTP 401): stale: the timestamp is 3600 seconds old; the tolerance is 300 seconds either way`,
      `warning: refused delivery ${id} (HTTP 401): missing: the request has no x-service-signature header`,
    ]);
    // Neither the secret nor the signature the tampered body would have needed appears anywhere.
    const everything = `${l.t.stdout()}${l.t.stderr()}${tampered.text}${stale.text}${missing.text}`.toLowerCase();
    expect(everything).not.toContain(secret.toLowerCase());
    expect(everything).not.toContain(hmacHex(secret, real['x-service-timestamp'] ?? '', oneByte));
    expect(await stop(l)).toBe(0);
  });

  it('a real delivery signed with another secret is refused: 401, and the sandbox marks it FAILED', async () => {
    const l = await listen(['--port', '0'], { env: { RFS_WEBHOOK_SECRET: 'whsec_not_the_subscription_secret' } });
    await subscribe(`${l.url}/hooks`);
    await complete('Wrong secret');
    const delivery = await attempted();
    expect(delivery.status).toBe('FAILED');
    expect(delivery.attempt.responseStatus).toBe(401);
    const lines = await eventually(async () => (l.lines().length === 1 ? l.lines() : undefined));
    expect(lines[0]).toMatchObject({ deliveryId: delivery.id, verdict: 'invalid', reason: 'mismatch', status: 401 });
  });

  it('prints a fixed-width, sanitised table row per delivery on a terminal', async () => {
    const { l } = await subscribedListener([...secretArgs, '--no-color'], { stdoutIsTTY: true, columns: 160 });
    const recordingId = await complete('Evil \u001b]0;pwned\u0007 title\u202e');
    const { id, attempt } = await attempted();
    const rows = await eventually(async () => {
      const text = l.t
        .stdout()
        .split('\n')
        .filter((x) => x !== '');
      return text.length === 2 ? text : undefined;
    });
    const [header = '', row = ''] = rows;
    // VERDICT as wide as its longest word (`valid` took 20 cells).
    expect(header).toBe('TIME      VERDICT    STATUS  DELIVERY                  EVENT                RECORDING             TITLE');
    expect(row).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d  valid {4}  200 {3}  ${id}  recording\\.completed  ${recordingId}  Evil \\\\x1b\\]0;pwned\\\\x07 title\\\\u202e$`,
      ),
    );
    // Each cell starts under its header.
    for (const [name, value] of [
      ['DELIVERY', id],
      ['EVENT', 'recording.completed'],
      ['RECORDING', recordingId],
      ['TITLE', 'Evil'],
    ] as const) {
      expect(row.indexOf(value)).toBe(header.indexOf(name));
    }
    expect(l.t.stdout()).not.toMatch(/[\u001b\u0007\u202e]/);

    // An invalid one shows its reason in the same columns.
    const body = Buffer.from(`${attempt.requestBody} `, 'utf8');
    expect((await send(`${l.url}/hooks`, { headers: attempt.requestHeaders, body })).status).toBe(401);
    const invalid = await eventually(
      async () =>
        l.t
          .stdout()
          .split('\n')
          .filter((x) => x !== '')[2],
    );
    expect(invalid).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  mismatch   401 {3}  ${id}  `));
    expect(invalid.indexOf(recordingId)).toBe(header.indexOf('RECORDING'));
    expect(await stop(l)).toBe(0);
  });

  it('with --forward-to, a terminal row says how long the target took (TOOK), after STATUS', async () => {
    const target = await startReceiver('/local/webhooks');
    targets.push(target);
    target.respond(202);
    const { l } = await subscribedListener([...secretArgs, '--forward-to', target.url, '--no-color'], { stdoutIsTTY: true, columns: 160 });
    await complete('Took test');
    const { id } = await attempted();
    // The row under the header: a live table's columns are chosen once for the terminal's width
    // (for a title of 60 cells), not per row, so the header is printed again only on a resize.
    const [header = '', row = ''] = await eventually(async () => {
      const text = l.t
        .stdout()
        .split('\n')
        .filter((x) => x !== '');
      const at = text.findIndex((x) => x.includes(id));
      return at >= 1 ? [text[at - 1] ?? '', text[at] ?? ''] : undefined;
    });
    // At 160 columns with TOOK, EVENT (one value) goes before a title would be cut, whatever this
    // row's title is.
    expect(header).toMatch(/^TIME {6}VERDICT {4}STATUS {2}TOOK {6}DELIVERY {18}RECORDING {13}TITLE/);
    expect(row).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  valid {4}  202 {3}  \\d+ ms *  ${id}  `));
    expect(row.indexOf(id)).toBe(header.indexOf('DELIVERY'));
    expect(await stop(l)).toBe(0);
  });

  // An app's 500 must never read as a success: STATUS stays at every width (RECORDING goes first).
  for (const columns of [60, 80, 120]) {
    it(`with --forward-to at ${columns} columns, a row shows the app's 500 under STATUS`, async () => {
      const target = await startReceiver('/local/webhooks');
      targets.push(target);
      target.respond(500);
      const { l } = await subscribedListener([...secretArgs, '--forward-to', target.url, '--no-color'], { stdoutIsTTY: true, columns });
      await complete(`Refused by the app at ${columns}`);
      const { id } = await attempted();
      const [header = '', row = ''] = await eventually(async () => {
        const text = l.t
          .stdout()
          .split('\n')
          .filter((x) => x !== '');
        const at = text.findIndex((x) => x.includes(id));
        return at >= 1 ? [text.findLast((x, i) => i < at && x.includes('VERDICT')) ?? '', text[at] ?? ''] : undefined;
      });
      expect(header.split(/ {2,}/)).toContain('STATUS');
      expect(row.slice(header.indexOf('STATUS')).trimStart()).toMatch(/^500 /);
      expect(row.length).toBeLessThanOrEqual(columns);
      expect(await stop(l)).toBe(0);
    });
  }

  it('passes a valid delivery on with --forward-to, byte for byte, and answers with the target status', async () => {
    const target = await startReceiver('/local/webhooks');
    targets.push(target);
    target.respond(202);
    const { l } = await subscribedListener([...secretArgs, '--forward-to', target.url]);
    expect(l.t.stderr()).toContain(`forwarding valid deliveries to ${target.url}`);
    await complete('Forward test');
    const { id, status, attempt } = await attempted();
    expect(status).toBe('SUCCEEDED');
    expect(attempt.responseStatus).toBe(202);

    const [forwarded] = await target.waitFor(1);
    expect(forwarded?.path).toBe('/local/webhooks');
    expect(forwarded?.body.equals(Buffer.from(attempt.requestBody, 'utf8'))).toBe(true);
    const serviceHeaders = (all: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('x-service-')));
    expect(serviceHeaders(forwarded?.headers ?? {})).toEqual(serviceHeaders(attempt.requestHeaders));
    expect(Object.keys(serviceHeaders(attempt.requestHeaders))).toHaveLength(4);
    expect(forwarded?.headers['content-type']).toBe('application/json');
    await eventually(async () => (l.lines().length === 1 ? true : undefined));
    expect(l.lines()[0]).toMatchObject({ deliveryId: id, verdict: 'valid', status: 202 });

    // The target now fails: the listener answers as it does.
    target.respond(500);
    const again = await send(`${l.url}/hooks`, { headers: attempt.requestHeaders, body: attempt.requestBody });
    expect(again.status).toBe(500);
    await eventually(async () => (l.lines().length === 2 ? true : undefined));
    expect(l.lines()[1]).toMatchObject({ deliveryId: id, verdict: 'valid', status: 500 });
    expect(target.received).toHaveLength(2);
    expect(await stop(l)).toBe(0);
  });
});

describe('webhooks listen: table on a narrow terminal', () => {
  it('drops EVENT and TIME at 80 columns, keeping every row under the same header', async () => {
    const secret = 'whsec_narrow';
    const l = await listen(['--port', '0', '--no-color'], { env: { RFS_WEBHOOK_SECRET: secret }, stdoutIsTTY: true, columns: 80 });
    const post = (title: string, signature?: string) => {
      const ts = Math.floor(Date.now() / 1000);
      const body = JSON.stringify({ id: 'dlv_n', event: 'recording.completed', data: { id: 'rec_narrow', title } });
      const headers = {
        'x-service-timestamp': String(ts),
        'x-service-signature': signature ?? signed(secret, ts, body),
        'x-service-delivery': 'dlv_n',
      };
      return send(`${l.url}/`, { headers, body });
    };
    expect((await post('A very long title that cannot fit in what is left of eighty columns')).status).toBe(200);
    expect((await post('', 'sha256=00')).status).toBe(401);
    const lines = await eventually(async () => {
      const text = l.t
        .stdout()
        .split('\n')
        .filter((x) => x !== '');
      return text.length === 3 ? text : undefined;
    });
    expect(lines).toEqual([
      'VERDICT    STATUS  DELIVERY                  RECORDING             TITLE',
      'valid      200     dlv_n                     rec_narrow            A very long …',
      'malformed  401     dlv_n                     rec_narrow',
    ]);
    expect(Math.max(...lines.map((x) => x.length))).toBeLessThanOrEqual(80);
  });
});

describe('webhooks listen: flags', () => {
  async function refused(
    argv: string[],
    env: NodeJS.ProcessEnv = { RFS_WEBHOOK_SECRET: 'whsec_flags' },
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const t = bufferIO({ env });
    const code = await runCli(['webhooks', 'listen', ...argv], t.io);
    return { code, stdout: t.stdout(), stderr: t.stderr() };
  }

  it('exits 2 without a secret, naming the three ways to give one, and listens on nothing', async () => {
    const port = await freePort();
    const r = await refused(['--port', String(port)], {});
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: no webhook secret: RFS_WEBHOOK_SECRET is not set/);
    expect(r.stderr).toContain('--secret-file <path>, --secret-env <VAR>, or the RFS_WEBHOOK_SECRET environment variable');
    expect(r.stderr).not.toContain('listening on');
    expect(await accepts(port)).toBe(false);
  });

  it.each([
    ['a public host', 'http://example.com/hook', /refusing --forward-to example\.com: deliveries are forwarded only to this machine/],
    ['a private address', 'http://192.168.1.10:3000/hook', /refusing --forward-to 192\.168\.1\.10/],
    ['another scheme', 'ftp://127.0.0.1/hook', /the scheme must be http or https, not ftp/],
    ['no scheme', '127.0.0.1:3000', /the scheme must be http or https|expected a URL/],
  ])('exits 2 for --forward-to %s and listens on nothing', async (_what, url, message) => {
    const port = await freePort();
    const r = await refused(['--port', String(port), '--forward-to', url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('listening on');
    expect(await accepts(port)).toBe(false);
  });

  it('has exactly the flags of cli.md, with their defaults, and examples in --help', async () => {
    const t = bufferIO();
    expect(await runCli(['webhooks', 'listen', '--help'], t.io)).toBe(0);
    // The command's own section; the global flags are listed once, in rfs --help, and this help
    // ends with a line pointing there (cli.md, Global options).
    const own = t.stdout().split('\nGlobal options (')[0] ?? '';
    expect(t.stdout()).toContain('\nGlobal options (-o, --json, -p, -q, -v, -y, …): see rfs --help');
    const flags = [...own.matchAll(/^ {2}(-[^ ]+(?: <[^>]+>)?)/gm)].map((m) => m[1]);
    expect(flags).toEqual([
      '--host <host>',
      '--port <port>',
      '--secret-env <VAR>',
      '--secret-file <path>',
      '--tolerance <seconds>',
      '--forward-to <url>',
      '--subscribe',
      '--public-url <url>',
      '--inspect',
      '--history <file>',
      '--event <name>',
      '-h,',
    ]);
    expect(t.stdout()).toMatch(/--host <host> +address to bind \(default: 127\.0\.0\.1\)/);
    expect(t.stdout()).toMatch(/--port <port> +port; 0 picks a free one \(default: 8787\)/);
    expect(t.stdout()).toMatch(/--tolerance <seconds> +allowed clock difference, both ways \(default: 300\)/);
    expect(t.stdout()).toMatch(/Examples:\n {2}\$ RFS_WEBHOOK_SECRET=whsec_… rfs webhooks listen\n/);
  });

  it.each(['70000', '-1', 'abc', '1.5', ''])('exits 2 for --port %j', async (port) => {
    const r = await refused(['--port', port]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid --port ${JSON.stringify(port)}: expected a whole number from 0 to 65535`);
    expect(r.stderr).not.toContain('listening on');
  });

  it('exits 2 for a negative --tolerance, and for --secret-env with --secret-file', async () => {
    const port = await freePort();
    const tolerance = await refused(['--port', String(port), '--tolerance', '-5']);
    expect(tolerance.code).toBe(2);
    expect(tolerance.stderr).toContain('invalid --tolerance "-5"');
    const both = await refused(['--port', String(port), '--secret-env', 'X', '--secret-file', '/nonexistent']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--secret-env and --secret-file cannot be used together');
    expect(await accepts(port)).toBe(false);
  });

  it('exits 2 when the port is taken, suggesting --port 0', async () => {
    const l = await listen(['--port', '0'], { env: { RFS_WEBHOOK_SECRET: 'whsec_taken' } });
    const r = await refused(['--port', String(l.port)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: cannot listen on 127.0.0.1:${l.port} (EADDRINUSE)\n--port 0 picks a free port\n`);
  });
});

describe('webhooks listen: stopping', () => {
  it('stops on abort with exit 0, closing open connections, and the port is free afterwards', async () => {
    const secret = 'whsec_stop_secret';
    const l = await listen(['--port', '0', '-o', 'ndjson'], { env: { RFS_WEBHOOK_SECRET: secret } });
    // A valid delivery over a connection that stays open (keep-alive), as the sandbox's may.
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true });
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"id":"dlv_stop","event":"recording.completed","data":{"id":"rec_stop","title":"Stop"}}';
    const reply = await send(`${l.url}/`, {
      headers: { 'x-service-timestamp': String(ts), 'x-service-signature': signed(secret, ts, body) },
      body,
      agent,
    });
    expect(reply.status).toBe(200);
    try {
      const started = Date.now();
      expect(await stop(l)).toBe(0);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      agent.destroy();
    }
    expect(await accepts(l.port)).toBe(false);
    expect(await canBind(l.port)).toBe(true);
    expect(l.lines()).toEqual([
      {
        deliveryId: null,
        event: null,
        recordingId: 'rec_stop',
        title: 'Stop',
        verdict: 'valid',
        reason: null,
        status: 200,
        duplicate: false,
      },
    ]);
    expect(l.t.stderr()).toMatch(/stopped listening\n$/);
    expect(l.t.stderr()).not.toContain(secret);
  });

  it('stops by itself with exit 0 when the reader of stdout goes away (| head -1)', async () => {
    const secret = 'whsec_pipe_secret';
    const l = await listen(['--port', '0', '-o', 'ndjson'], { env: { RFS_WEBHOOK_SECRET: secret } });
    l.t.io.stdout.destroy();
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"data":{"id":"rec_pipe"}}';
    expect(
      (await send(`${l.url}/`, { headers: { 'x-service-timestamp': String(ts), 'x-service-signature': signed(secret, ts, body) }, body }))
        .status,
    ).toBe(200);
    expect(await l.done).toBe(0);
    listeners = listeners.filter((x) => x !== l);
    expect(await accepts(l.port)).toBe(false);
  });

  it('with --quiet still says where it listens, and nothing else', async () => {
    const l = await listen(['--port', '0', '-q'], { env: { RFS_WEBHOOK_SECRET: 'whsec_quiet' } });
    expect(await stop(l)).toBe(0);
    expect(l.t.stderr()).toBe(`listening on ${l.url}\n`);
  });
});

describe('a body over the cap', () => {
  /**
   * A POST of `size` bytes written whole before the answer is read, as Node's http does, from a
   * process of its own (in the test's own process the two ends share one event loop, and the
   * reset never shows): its status, or the error code that ended it.
   */
  function postWhole(url: string, size: number, chunked: boolean): Promise<string> {
    const script = `
      const [url, size, chunked] = [process.argv[1], Number(process.argv[2]), process.argv[3] === 'true'];
      const req = require('node:http').request(url, { method: 'POST', agent: false, headers: chunked ? {} : { 'content-length': String(size) } }, (res) => {
        res.resume();
        console.log(res.statusCode);
      });
      req.on('error', (error) => console.log(error.code || error.message));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let left = Math.ceil(size / chunk.length);
      const pump = () => {
        while (left > 0) {
          left -= 1;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();`;
    return new Promise((resolve, reject) => {
      execFile(process.execPath, ['-e', script, url, String(size), String(chunked)], { timeout: 20_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout.trim()),
      );
    });
  }

  it.each([
    ['with a Content-Length', false],
    ['chunked', true],
  ])('answers a 16 MB body sent %s with 413, not a reset connection, and prints a line saying so', async (_how, chunked) => {
    const l = await listen(['--port', '0', '--secret-env', 'LISTEN_SECRET'], { env: { LISTEN_SECRET: 'whsec_listen_413_secret' } });
    expect(await postWhole(`${l.url}/hooks`, 16 * 1024 * 1024, chunked)).toBe('413');
    expect(l.t.stderr()).toContain('warning: refused a POST request (HTTP 413): a body larger than 1048576 bytes\n');
    // The listener goes on receiving.
    expect(await postWhole(`${l.url}/hooks`, 64 * 1024, false)).toBe('401');
    expect(await stop(l)).toBe(0);
  });
});
