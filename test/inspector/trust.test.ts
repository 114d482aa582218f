// The inspector's Trust rules (cli.md, webhooks listen --inspect): anyone on the machine, and any
// web page, can POST to the receiver, so the listener replays and re-signs only a delivery that
// verified, and no answer, page or file carries a signature of a body that did not. Copy as curl
// sends the body byte for byte and never makes curl read a file: run with sh and curl here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitize } from '../../src/core/sanitize.js';
import { runRfs } from '../helpers/child.js';
import {
  delivery,
  entryOf,
  type Listener,
  listenEnv,
  post,
  replayApi,
  SECRET,
  startApp,
  startListen,
  swapCode,
  waitFor,
} from './support.js';

const run = promisify(execFile);

let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
let listen: Listener;
/** The Cookie header of the page opened at the address rfs printed. */
let cookie: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-trust-'));
  app = await startApp();
  listen = await startListen(work, { forwardTo: app.url });
  cookie = (await swapCode(listen.pageUrl)).cookie;
}, 30_000);
afterAll(async () => {
  await listen?.stop();
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

/** verify-signature's exit code for what the app received. */
async function verifies(received: { headers: Record<string, unknown>; body: Buffer }): Promise<number | null> {
  const file = join(work, `verify-${Date.now()}-${Math.random()}.json`);
  writeFileSync(file, received.body);
  const verify = await runRfs(
    [
      'verify-signature',
      '--secret-env',
      'RFS_WEBHOOK_SECRET',
      '--timestamp',
      String(received.headers['x-service-timestamp']),
      '--signature',
      String(received.headers['x-service-signature']),
      '--payload',
      file,
    ],
    { env: listenEnv(work) },
  );
  return verify.code;
}

describe('replay and re-sign: only what verified', () => {
  const forgedSignature = `sha256=${'de'.repeat(32)}`;

  it('refuses a forged and an unsigned body for replay, re-sign and edit, while a valid one re-signs and verifies', async () => {
    expect(await post(listen.receiverUrl, delivery('dlv_trust_forged', { body: '{"amount":"1000000"}', signature: forgedSignature }))).toBe(
      401,
    );
    expect(await post(listen.receiverUrl, delivery('dlv_trust_unsigned', { signature: null }))).toBe(401);
    expect(await post(listen.receiverUrl, delivery('dlv_trust_valid'))).toBe(201);
    const forged = await entryOf(listen.inspectorUrl, 'dlv_trust_forged');
    const unsigned = await entryOf(listen.inspectorUrl, 'dlv_trust_unsigned');
    const valid = await entryOf(listen.inspectorUrl, 'dlv_trust_valid');
    expect([forged.verdict, unsigned.verdict, valid.verdict]).toEqual(['mismatch', 'missing', 'valid']);
    expect([forged.replayable, unsigned.replayable, valid.replayable]).toEqual([false, false, true]);
    const atApp = app.received.length;

    for (const refused of [forged, unsigned]) {
      for (const input of [{ resign: true, cookie }, { resign: false }, { body: '{"amount":"1"}', cookie }]) {
        const answer = await replayApi(listen.inspectorUrl, refused.id, input);
        expect(answer.status, JSON.stringify(input)).toBe(409);
        expect(answer.json.error).toMatch(/did not verify/);
      }
    }
    // Nothing reached the app, signed or not.
    expect(app.received.length).toBe(atApp);

    const resigned = await replayApi(listen.inspectorUrl, valid.id, { resign: true, cookie });
    expect(resigned.status).toBe(200);
    const got = await waitFor('the re-signed replay at the app', () => app.received[atApp]);
    expect(await verifies(got)).toBe(0);
  });

  it('re-signs only for the page (its cookie), and no answer, event or history line carries a signature the listener made', async () => {
    // Signed a minute ago (within the tolerance): a re-sign in the same second as the delivery would
    // make the sender's own signature again, which the detail rightly shows.
    expect(await post(listen.receiverUrl, delivery('dlv_trust_resign', { timestamp: Math.floor(Date.now() / 1000) - 60 }))).toBe(201);
    const valid = await entryOf(listen.inspectorUrl, 'dlv_trust_resign');
    const events = await fetch(`${listen.inspectorUrl}api/events`);
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    let told = '';
    const atApp = app.received.length;
    // Any local user can reach the JSON API: a fresh signature of a verified body is the page's to ask for.
    for (const wrong of [undefined, 'rfs-inspector-1=x']) {
      const refused = await replayApi(listen.inspectorUrl, valid.id, { resign: true, cookie: wrong });
      expect(refused.status).toBe(403);
      expect(refused.json.error).toMatch(/only from the page opened at an address rfs printed/);
    }
    expect(app.received.length).toBe(atApp);
    // Replay as sent signs nothing: it stays open to scripts.
    expect((await replayApi(listen.inspectorUrl, valid.id, { resign: false })).status).toBe(200);
    const asSent = await waitFor('the replay as sent at the app', () => app.received[atApp]);
    expect(await verifies(asSent)).toBe(0);

    const edited = '{"id":"dlv_trust_resign","edited":true}';
    const resigned = await replayApi(listen.inspectorUrl, valid.id, { resign: true, cookie });
    const editedAnswer = await replayApi(listen.inspectorUrl, valid.id, { body: edited, cookie });
    expect([resigned.status, editedAnswer.status]).toEqual([200, 200]);
    const made = [
      await waitFor('the re-signed replay at the app', () => app.received[atApp + 1]),
      await waitFor('the edited replay at the app', () => app.received[atApp + 2]),
    ];
    // The app got them, signed with the secret: verify-signature says so.
    for (const got of made) expect(await verifies(got)).toBe(0);
    const values = made.map((got) => String(got.headers['x-service-signature']).slice('sha256='.length));
    expect(values.every((v) => /^[0-9a-f]{64}$/.test(v))).toBe(true);
    // What the answers say instead: when it was re-signed, not the value.
    for (const [answer, got] of [
      [resigned, made[0]],
      [editedAnswer, made[1]],
    ] as const) {
      const when = new Date(Number(got?.headers['x-service-timestamp']) * 1000).toISOString();
      expect(answer.json.data?.request.headers['x-service-signature']).toBe(`[re-signed by the listener at ${when}: not kept]`);
    }
    const detail = await (await fetch(`${listen.inspectorUrl}api/deliveries/${valid.id}`)).text();
    const listed = await (await fetch(`${listen.inspectorUrl}api/deliveries`)).text();
    told = await waitFor('the event of the edited replay', async () => {
      const { value } = await reader.read();
      told += Buffer.from(value ?? []).toString('utf8');
      return told.includes('replay edited, re-signed') ? told : undefined;
    });
    await reader.cancel();
    const history = await waitFor('the edited replay in the history', () => {
      const text = readFileSync(join(work, 'history.jsonl'), 'utf8');
      return text.includes('"replay edited, re-signed"') ? text : undefined;
    });
    for (const text of [JSON.stringify(resigned.json), JSON.stringify(editedAnswer.json), detail, listed, told, history])
      for (const value of values) expect(text).not.toContain(value);
    expect(detail).toContain('re-signed by the listener at');
  });

  it('keeps no signature of a refused delivery, not even the one it came with: not in the list, its detail, the event stream, a curl command, its fixture nor the history file', async () => {
    const forged = await entryOf(listen.inspectorUrl, 'dlv_trust_forged');
    const signatureValue = /[0-9a-f]{64}/g;
    const detailText = await (await fetch(`${listen.inspectorUrl}api/deliveries/${forged.id}`)).text();
    const detail = JSON.parse(detailText) as {
      data: { exchanges: unknown[]; explanation: string; request: { headers: Record<string, string> } };
    };
    expect(detail.data.exchanges).toEqual([]);
    // That one came, and why it failed: not its value.
    expect(detail.data.request.headers['x-service-signature']).toBe('[received, not kept: the delivery did not verify (mismatch)]');
    expect(detail.data.explanation).not.toBe('');
    const curl = await fetch(`${listen.inspectorUrl}api/deliveries/${forged.id}/curl`);
    expect(curl.status).toBe(409);
    expect(((await curl.json()) as { error: string }).error).toMatch(/did not verify \(mismatch\): it has no curl command/);
    const fixture = await (await fetch(`${listen.inspectorUrl}api/deliveries/${forged.id}/body`)).text();
    expect(fixture).toBe('{"amount":"1000000"}');
    const history = await waitFor('the refused delivery in the history', () => {
      const text = readFileSync(join(work, 'history.jsonl'), 'utf8');
      return text.includes('dlv_trust_forged') ? text : undefined;
    });
    const kept = history
      .trim()
      .split('\n')
      .filter((line) => line.includes('dlv_trust_forged'));
    expect(kept.length).toBeGreaterThan(0);
    for (const line of kept) expect((JSON.parse(line) as { exchanges: unknown[] }).exchanges).toEqual([]);
    const listed = await (await fetch(`${listen.inspectorUrl}api/deliveries`)).text();
    for (const text of [detailText, fixture, listed, ...kept]) {
      expect(text).not.toContain(forgedSignature);
      expect(text).not.toContain(forgedSignature.slice('sha256='.length));
      expect(text.match(signatureValue)).toBeNull();
    }
  });

  it('re-signs an edited body of a verified delivery: the app gets it, verify-signature accepts it, the detail keeps what was sent', async () => {
    const valid = await entryOf(listen.inspectorUrl, 'dlv_trust_valid');
    const edited = JSON.stringify({
      id: 'dlv_trust_valid',
      event: 'recording.completed',
      data: { id: 'rec_test0001', title: 'edited title' },
    });
    const atApp = app.received.length;
    // Any local user can reach the JSON API: without this run's cookie (which only the page opened
    // at an address rfs printed holds) no edited body is signed.
    const [name, value] = cookie.split('=') as [string, string];
    for (const wrong of [undefined, '', `${name}=`, `${name}=${'x'.repeat(value.length)}`, `rfs-inspector=${value}`]) {
      const refused = await replayApi(listen.inspectorUrl, valid.id, { body: edited, cookie: wrong });
      expect(refused.status).toBe(403);
      expect(refused.json.error).toMatch(/only from the page opened at an address rfs printed/);
    }
    expect(app.received.length).toBe(atApp);
    const answer = await replayApi(listen.inspectorUrl, valid.id, { body: edited, cookie });
    expect(answer.status).toBe(200);
    expect(answer.json.data?.label).toBe('replay edited, re-signed');
    const got = await waitFor('the edited replay at the app', () => app.received[atApp]);
    expect(got.body.toString('utf8')).toBe(edited);
    expect(await verifies(got)).toBe(0);
    const detail = (await (await fetch(`${listen.inspectorUrl}api/deliveries/${valid.id}`)).json()) as {
      data: { exchanges: { label: string; request: { body: string | null } }[] };
    };
    expect(detail.data.exchanges.at(-1)).toMatchObject({ label: 'replay edited, re-signed', request: { body: edited } });
  });
});

describe('a history kept under another secret', () => {
  // The default history is one file per port, so a restart with another secret reads verdicts
  // made under the earlier one: a body anyone could sign with that one (a tutorial's secret, the
  // sandbox's) must not come out signed with the secret the listener has now.
  it('is replayed as sent only after a restart with another secret: never re-signed nor edited', async () => {
    const earlier = 'whsec_aTutorialsPublicSecret0123456789abcdef';
    const history = join(work, 'other-secret.jsonl');
    const chosen = '{"id":"dlv_other_secret","event":"recording.completed","data":{"amount":"1000000"}}';
    const first = await startListen(work, { forwardTo: app.url, history, secret: earlier });
    try {
      expect(await post(first.receiverUrl, delivery('dlv_other_secret', { body: chosen, secret: earlier }))).toBe(201);
      await entryOf(first.inspectorUrl, 'dlv_other_secret');
    } finally {
      await first.stop();
    }
    const second = await startListen(work, { forwardTo: app.url, history });
    try {
      const secondCookie = (await swapCode(second.pageUrl)).cookie;
      expect(await post(second.receiverUrl, delivery('dlv_current_secret'))).toBe(201);
      const other = await entryOf(second.inspectorUrl, 'dlv_other_secret');
      const current = await entryOf(second.inspectorUrl, 'dlv_current_secret');
      const atApp = app.received.length;
      for (const input of [
        { resign: true, cookie: secondCookie },
        { body: '{"amount":"1"}', cookie: secondCookie },
      ]) {
        const refused = await replayApi(second.inspectorUrl, other.id, input);
        expect(refused.status, JSON.stringify(input)).toBe(409);
        expect(refused.json.error).toMatch(/verified under another secret/);
      }
      expect(app.received.length).toBe(atApp);
      expect(other).toMatchObject({ verdict: 'valid', replayable: true, resignable: false });
      expect(current).toMatchObject({ verdict: 'valid', replayable: true, resignable: true });
      const detail = (await (await fetch(`${second.inspectorUrl}api/deliveries/${other.id}`)).json()) as { data: { explanation: string } };
      expect(detail.data.explanation).toMatch(/verified under another secret/);
      // As sent: the bytes and the earlier secret's signature, nothing signed now.
      expect((await replayApi(second.inspectorUrl, other.id, { resign: false })).status).toBe(200);
      const asSent = await waitFor('the replay as sent at the app', () => app.received[atApp]);
      expect(asSent.body.toString('utf8')).toBe(chosen);
      expect(await verifies(asSent)).not.toBe(0);
      // What verified under the secret of this run still re-signs.
      expect((await replayApi(second.inspectorUrl, current.id, { resign: true, cookie: secondCookie })).status).toBe(200);
      expect(await verifies(await waitFor('the re-signed replay at the app', () => app.received[atApp + 1]))).toBe(0);
    } finally {
      await second.stop();
    }
  });
});

describe('copy as curl', () => {
  // Bodies that a careless command gets wrong: one naming a file (curl -d @file reads it), shell
  // syntax, quotes, line ends, and bytes that are not UTF-8 (with a NUL, which no argument holds).
  const secretFile = () => join(work, 'not-to-be-read.txt');
  const cases: [string, () => Buffer][] = [
    ['a body that names a file', () => Buffer.from(`@${secretFile()}`)],
    ['shell syntax, quotes and line ends', () => Buffer.from(`{"a":"it's $(touch ${join(work, 'pwned')}) \`x\` \\"q\\""}\r\n\ttail\n`)],
    ['bytes that are not UTF-8', () => Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x0a, 0x40, 0x2f, 0x7d])],
    // Pasted into a terminal, ESC[201~ ends a bracketed paste and ^C, CR run what comes before them.
    ['keystrokes a paste would obey', () => Buffer.from(`{"a":1}\u001b[201~\u0003\rtouch ${join(work, 'pwned')}\n\u202e\u200b`)],
    // Only the listener's own secret is kept from the page: text that looks like one is the body.
    [
      'text that only looks like a secret or a key',
      () => Buffer.from('{"note":"whsec_notTheListenersSecret0123456789abcdef service_pk_live_lookalike0123456789wxyz"}'),
    ],
  ];

  for (const [name, bodyOf] of cases) {
    it(`sends ${name} byte for byte, reading no file`, async () => {
      writeFileSync(secretFile(), 'FILE CONTENTS THAT MUST NOT BE SENT');
      const body = bodyOf();
      const id = `dlv_curl_${name.replace(/\W+/g, '_')}`;
      expect(await post(listen.receiverUrl, delivery(id, { body }))).toBe(201);
      const entry = await entryOf(listen.inspectorUrl, id);
      const command = await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}/curl`)).text();
      // The fixture is the body's bytes too.
      expect(Buffer.from(await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}/body`)).arrayBuffer()).equals(body)).toBe(
        true,
      );
      // Safe to paste: no control character but the line ends, no bidi or invisible character.
      expect(command).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e]/u);
      const atApp = app.received.length;
      await run('sh', ['-c', command], { cwd: work });
      const got = await waitFor('the curl request at the app', () => app.received[atApp]);
      expect(got.body.equals(body)).toBe(true);
      expect(got.body.toString('latin1')).not.toContain('FILE CONTENTS');
      // The signature headers went along: the app can verify what curl sent.
      expect(await verifies(got)).toBe(0);
      expect(() => readFileSync(join(work, 'pwned'))).toThrow();
    });
  }
});

describe("copy as curl, with the terminal's escaping rule and past one argument", () => {
  // Each run by bash and curl themselves; the app records the bytes that came.
  const bodies: [string, Buffer][] = [
    ['line and paragraph separators', Buffer.from('{"a":"x\u2028y\u2029z"}')],
    ['tag characters', Buffer.from('{"a":"ok\u{e0041}\u{e007f}"}')],
    ['Hangul fillers', Buffer.from('{"a":"\u3164\u115f\u1160\uffa0"}')],
    ['a combining grapheme joiner', Buffer.from('{"a":"a\u034fb"}')],
    // One argument holds at most 128 KiB on Linux: "Argument list too long" (exit 126) before.
    ['a 200 KB text body', Buffer.from(JSON.stringify({ a: 'x'.repeat(200 * 1024) }))],
    ['a 200 KB body that is not text', Buffer.from(Array.from({ length: 200 * 1024 }, (_, i) => (i * 7919) % 256))],
  ];
  for (const [name, body] of bodies) {
    it(`sends a body with ${name} byte for byte, and the command shows none of it raw`, async () => {
      const id = `dlv_curl2_${name.replace(/\W+/g, '_')}`;
      expect(await post(listen.receiverUrl, delivery(id, { body }))).toBe(201);
      const entry = await entryOf(listen.inspectorUrl, id);
      const command = await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}/curl`)).text();
      // The one escaping rule of the terminal leaves the command as it is.
      expect(sanitize(command, { multiline: true })).toBe(command);
      const atApp = app.received.length;
      // From a script file, as a paste would run it (one `bash -c` argument could not hold 200 KB either).
      const script = join(work, `${id}.sh`);
      writeFileSync(script, command);
      await run('bash', [script], { cwd: work });
      const got = await waitFor('the curl request at the app', () => app.received[atApp]);
      expect(got.body.equals(body)).toBe(true);
      expect(await verifies(got)).toBe(0);
    });
  }

  // Header values are bytes (node:http reads them as latin1): sent as they came, pasteable or as base64.
  const headers: [string, Buffer][] = [
    ['a C1 CSI (U+009B)', Buffer.from('a\u009b31mb', 'utf8')],
    ['a right-to-left override (E2 80 AE)', Buffer.from('\u202etxt.exe', 'utf8')],
    ['plain UTF-8 (é)', Buffer.from('café', 'utf8')],
    ['a byte that is not UTF-8', Buffer.from([0x61, 0xff, 0x62])],
  ];
  for (const [name, value] of headers) {
    it(`sends a header with ${name} byte for byte, and the command shows none of it raw`, async () => {
      const id = `dlv_curlh_${name.replace(/\W+/g, '_')}`;
      const d = delivery(id);
      d.headers['x-service-note'] = value.toString('latin1');
      expect(await post(listen.receiverUrl, d)).toBe(201);
      const entry = await entryOf(listen.inspectorUrl, id);
      const command = await (await fetch(`${listen.inspectorUrl}api/deliveries/${entry.id}/curl`)).text();
      expect(sanitize(command, { multiline: true })).toBe(command);
      const atApp = app.received.length;
      await run('bash', ['-c', command], { cwd: work });
      const got = await waitFor('the curl request at the app', () => app.received[atApp]);
      expect(Buffer.from(String(got.headers['x-service-note']), 'latin1').equals(value)).toBe(true);
      expect(await verifies(got)).toBe(0);
    });
  }
});

it('never holds the secret in the page, the API or the history', async () => {
  const texts = [
    await (await fetch(listen.inspectorUrl)).text(),
    await (await fetch(`${listen.inspectorUrl}app.js`)).text(),
    await (await fetch(`${listen.inspectorUrl}api/deliveries`)).text(),
    readFileSync(join(work, 'history.jsonl'), 'utf8'),
  ];
  for (const text of texts) expect(text).not.toContain(SECRET);
});
