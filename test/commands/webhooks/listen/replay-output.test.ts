// `webhooks listen --inspect`: a replay made from the inspector (as sent, re-signed, edited) is
// one more line of the listener's output, as a delivery is (cli.md, webhooks listen: a table
// row on a terminal, ndjson otherwise; docs/inspector.md, Replays in the output): the kind, the
// delivery id, the app's status and time, server text escaped, and no secret or signature.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../../../helpers/child.js';
import {
  delivery,
  entryOf,
  LISTEN_READY,
  listenEnv,
  post,
  replayApi,
  SECRET,
  startApp,
  swapCode,
  waitFor,
} from '../../../inspector/support.js';

let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
const stops: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-listen-replay-'));
  app = await startApp();
  stops.push(() => app.close());
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  rmSync(work, { recursive: true, force: true });
});

/** rfs webhooks listen --inspect --forward-to the app, with its stdout kept; stopped by its PID. */
async function listen(output: 'ndjson' | 'table') {
  const args = ['webhooks', 'listen', '--port', '0', '--forward-to', app.url, '--inspect', '127.0.0.1:0'];
  args.push('--history', join(work, 'history.jsonl'), '-o', output, '--no-color');
  const child = spawn(process.execPath, [RFS_BIN, ...args], {
    env: { PATH: process.env.PATH, COLUMNS: '160', ...listenEnv(work) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  stops.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        process.kill(child.pid as number, 'SIGTERM');
      }),
  );
  const ready = await waitFor('the listener and its inspector', () => LISTEN_READY.exec(stderr) ?? undefined);
  // The page's cookie, for which the printed address's one-time code is swapped: re-signing needs it.
  const { cookie } = await swapCode(`${ready[2] as string}#${ready[3] as string}`);
  return { receiverUrl: ready[1] as string, inspectorUrl: ready[2] as string, cookie, stdout: () => stdout };
}

// A title with an escape sequence and a bidi override: shown escaped, never raw.
const TITLE = 'Board \u001b[31mred\u001b[0m \u202emeeting';

describe('webhooks listen --inspect: replays in the output', () => {
  it('ndjson: one object per replay (as sent, re-signed, edited) with its kind and the app’s answer', async () => {
    const l = await listen('ndjson');
    const sent = delivery('dlv_replayOutput00000001', { title: TITLE });
    expect(await post(l.receiverUrl, sent)).toBe(201);
    const entry = await entryOf(l.inspectorUrl, 'dlv_replayOutput00000001');
    const lines = () =>
      l
        .stdout()
        .split('\n')
        .filter((line) => line !== '');
    await waitFor('the delivery line', () => (lines().length === 1 ? true : undefined));

    const inputs = [{ resign: false }, { resign: true }, { body: '{"edited":true}', resign: true }];
    for (const input of inputs) {
      const answer = await replayApi(l.inspectorUrl, entry.id, { ...input, cookie: l.cookie });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    }
    await waitFor('a line per replay', () => (lines().length === 4 ? true : undefined));
    const replays = lines()
      .slice(1)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(replays.map((r) => r.replay)).toEqual(['as-sent', 're-signed', 'edited']);
    for (const r of replays) {
      expect(Object.keys(r)).toEqual(['replay', 'deliveryId', 'event', 'recordingId', 'title', 'status', 'durationMs', 'error']);
      expect(r).toMatchObject({ deliveryId: 'dlv_replayOutput00000001', event: 'recording.completed', status: 201, error: null });
      expect(r.title).toBe(TITLE);
      expect(typeof r.durationMs).toBe('number');
    }
    const out = l.stdout();
    // The raw characters are escaped in the JSON text (safe-json), the meaning kept.
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u202e');
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('sha256=');
    // Every signature the app received (the forward and the replays) is absent from the output.
    for (const received of app.received) expect(out).not.toContain(String(received.headers['x-service-signature']).slice(7));
  });

  it('table: a row per replay, VERDICT `replay`, STATUS and TOOK the app’s, the kind before the title', async () => {
    const l = await listen('table');
    const sent = delivery('dlv_replayOutput00000002', { title: TITLE });
    expect(await post(l.receiverUrl, sent)).toBe(201);
    const entry = await entryOf(l.inspectorUrl, 'dlv_replayOutput00000002');
    const rows = () =>
      l
        .stdout()
        .split('\n')
        .filter((line) => line.includes('dlv_replayOutput00000002'));
    await waitFor('the delivery row', () => (rows().length === 1 ? true : undefined));
    expect((await replayApi(l.inspectorUrl, entry.id, { resign: true, cookie: l.cookie })).status).toBe(200);
    await waitFor('the replay row', () => (rows().length === 2 ? true : undefined));
    const row = rows()[1] as string;
    expect(row).toMatch(/\breplay\s+201\s+\d+ ms\s+dlv_replayOutput00000002\b/);
    expect(row).toContain('[re-signed] Board');
    expect(row).not.toContain('\u001b');
    expect(row).not.toContain('\u202e');
    expect(l.stdout()).not.toContain('sha256=');
  });
});
