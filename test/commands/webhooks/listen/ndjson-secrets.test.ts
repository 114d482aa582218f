// `rfs webhooks listen -o ndjson` and the secrets of the run (cli.md: a webhook secret or an API
// key is never printed; docs/configuration.md): the built listener, on 127.0.0.1 port 0, gets
// deliveries whose body and headers carry the listener's exact secret, the run's API key, and
// text that merely looks like a secret. Each stdout line must be JSON (JSON.parse, and jq
// itself), hold neither the secret nor the key in any form, and show the look-alike as it came.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { killAll, spawnRfs } from '../../../helpers/child.js';
import { startApp, waitFor } from '../../../inspector/support.js';
import { send, signed } from './support.js';

const SECRET = 'whsec_ndjsonExactSecret0123456789abcdef';
const API_KEY = 'service_pk_ndjsonRunKey0123456789abcdefWXYZ';
/** Shaped like a secret, but not one this run knows: printed as it came. */
const LOOK_ALIKE = 'whsec_someoneElsesLookAlike9876543210zyx';
const KEY_LOOK_ALIKE = 'service_pk_notTheRunsKey1111222233334444';

let work: string;
const children: ChildProcess[] = [];
let app: Awaited<ReturnType<typeof startApp>> | undefined;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'rfs-listen-ndjson-'));
});
afterEach(async () => {
  await killAll(children);
  await app?.close();
  app = undefined;
  rmSync(work, { recursive: true, force: true });
});

/** Every form of a known secret that would give it away: as is, JSON-escaped, percent-encoded. */
function leaks(text: string, secret: string): boolean {
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)].some((form) => text.includes(form));
}

it('prints neither the exact secret nor the key in any ndjson line, and the look-alikes as they came', async () => {
  app = await startApp();
  const l = spawnRfs(
    ['webhooks', 'listen', '--port', '0', '--forward-to', app.url, '-o', 'ndjson'],
    { RFS_WEBHOOK_SECRET: SECRET, RFS_API_KEY: API_KEY, RFS_CONFIG_DIR: join(work, 'config'), XDG_STATE_HOME: join(work, 'state') },
    children,
  );
  const receiver = await waitFor('the listener', () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(l.stderr())?.[1]);

  const deliveries = [
    // Verified: the secret and the key in the title, the look-alikes beside them.
    {
      id: `dlv_a_${LOOK_ALIKE}`,
      event: 'recording.completed',
      title: `exact ${SECRET} key ${API_KEY} look-alike ${LOOK_ALIKE} ${KEY_LOOK_ALIKE}`,
      secret: SECRET,
    },
    // The exact secret in the delivery-id and event headers; signed with another secret (refused).
    { id: `dlv_b_${SECRET}`, event: `recording.completed ${SECRET} ${API_KEY}`, title: `quoted "${SECRET}"`, secret: LOOK_ALIKE },
  ];
  for (const d of deliveries) {
    const body = Buffer.from(JSON.stringify({ id: d.id, event: 'recording.completed', data: { id: `rec_${SECRET}`, title: d.title } }));
    const timestamp = Math.floor(Date.now() / 1000);
    await send(`${receiver}/`, {
      headers: {
        'content-type': 'application/json',
        'x-service-delivery': d.id,
        'x-service-event': d.event,
        'x-service-timestamp': String(timestamp),
        'x-service-signature': signed(d.secret, timestamp, body),
        'x-sender-note': `${SECRET} ${API_KEY} ${LOOK_ALIKE}`,
      },
      body,
    });
  }
  const out = await waitFor('two ndjson lines', () => {
    const text = l.stdout();
    return text.split('\n').filter((line) => line !== '').length >= 2 ? text : undefined;
  });

  const lines = out.split('\n').filter((line) => line !== '');
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  // jq reads the same text as JSON, a value a line.
  const viaJq = execFileSync('jq', ['-c', '.'], { input: out, encoding: 'utf8' }).trim().split('\n');
  expect(viaJq.map((line) => JSON.parse(line))).toEqual(parsed);

  for (const text of [out, ...viaJq]) {
    expect(leaks(text, SECRET), text).toBe(false);
    expect(leaks(text, API_KEY), text).toBe(false);
  }
  expect(parsed[0]).toMatchObject({ verdict: 'valid', deliveryId: `dlv_a_${LOOK_ALIKE}` });
  expect(parsed[0]?.title).toBe(`exact whsec_… key service_pk_…WXYZ look-alike ${LOOK_ALIKE} ${KEY_LOOK_ALIKE}`);
  expect(parsed[0]?.recordingId).toBe('rec_whsec_…');
  expect(parsed[1]).toMatchObject({
    verdict: 'invalid',
    reason: 'mismatch',
    deliveryId: 'dlv_b_whsec_…',
    event: 'recording.completed whsec_… service_pk_…WXYZ',
    title: 'quoted "whsec_…"',
  });
  // Nor on stderr (the refused delivery's warning quotes its id).
  expect(leaks(l.stderr(), SECRET), l.stderr()).toBe(false);
  expect(leaks(l.stderr(), API_KEY), l.stderr()).toBe(false);
});
