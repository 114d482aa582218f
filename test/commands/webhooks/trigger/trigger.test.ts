// rfs webhooks trigger (cli.md, webhooks) against `rfs webhooks listen` running
// in-process: a valid delivery is accepted, --bad-signature and --stale are refused (and that is
// exit 0: the receiver did its job), --duplicate sends the same delivery id twice, --recording
// builds the payload from a recording of the sandbox. Neither ever prints the secret.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { WebhookPayload } from '../../../../src/shared/schemas.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { bufferIO, type BufferIO } from '../../../helpers/io.js';
import { startReceiver, type Receiver } from '../../deliveries/support.js';

const SECRET = 'whsec_triggertestsecret0123456789abcd';
const env = (extra: NodeJS.ProcessEnv = {}) => ({ RFS_WEBHOOK_SECRET: SECRET, ...extra });

interface Listener {
  t: BufferIO;
  url: string;
  controller: AbortController;
  done: Promise<number>;
  lines(): { deliveryId: string; recordingId: string; title: string; verdict: string; reason: string | null; status: number }[];
}

let listener: Listener | undefined;
let configDir: string;

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'rfs-trigger-'));
});
afterEach(async () => {
  if (listener) {
    listener.controller.abort();
    expect(await listener.done).toBe(0);
    listener = undefined;
  }
  rmSync(configDir, { recursive: true, force: true });
});

async function listen(): Promise<Listener> {
  const t = bufferIO({ env: env() });
  const controller = new AbortController();
  const done = runCli(['webhooks', 'listen', '--port', '0', '-o', 'ndjson'], t.io, { signal: controller.signal });
  const deadline = Date.now() + 10_000;
  let url: string | undefined;
  while (url === undefined) {
    url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(t.stderr())?.[1];
    if (Date.now() > deadline) throw new Error(`listen did not start: ${t.stderr()}`);
    if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  listener = {
    t,
    url,
    controller,
    done,
    lines: () =>
      t
        .stdout()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
  };
  return listener;
}

async function trigger(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  // Both bufferIOs share one fixed `now`, so the listener and the trigger agree on the time.
  const t = bufferIO({ env: env({ RFS_CONFIG_DIR: configDir, ...extraEnv }) });
  const code = await runCli(['webhooks', 'trigger', ...args], t.io);
  const rows = t
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { deliveryId: string; status: number; answer: string; expected: string; ok: boolean });
  return { code, rows, stdout: t.stdout(), stderr: t.stderr() };
}

describe('webhooks trigger against webhooks listen', () => {
  it('sends a valid delivery that the listener accepts: exit 0, status and time printed', async () => {
    const l = await listen();
    const r = await trigger(['--to', l.url, '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]).toMatchObject({ status: 200, answer: 'accepted', expected: 'accepted', ok: true });
    expect(r.rows[0]).toHaveProperty('durationMs');
    const [got] = l.lines();
    expect(got).toMatchObject({ deliveryId: r.rows[0]?.deliveryId, verdict: 'valid', status: 200, recordingId: 'rec_example000000001' });
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  });

  it('--bad-signature is refused by the listener (mismatch), and that is exit 0', async () => {
    const l = await listen();
    const r = await trigger(['--to', l.url, '--bad-signature', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.rows[0]).toMatchObject({ status: 401, answer: 'refused', expected: 'refused', ok: true });
    expect(l.lines()[0]).toMatchObject({ verdict: 'invalid', reason: 'mismatch', status: 401 });
  });

  it('--stale is refused by the listener (stale), and that is exit 0', async () => {
    const l = await listen();
    const r = await trigger(['--to', l.url, '--stale', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.rows[0]).toMatchObject({ status: 401, answer: 'refused', ok: true });
    expect(l.lines()[0]).toMatchObject({ verdict: 'invalid', reason: 'stale', status: 401 });
  });

  it('--duplicate sends the same delivery twice: one delivery id, both accepted', async () => {
    const l = await listen();
    const r = await trigger(['--to', l.url, '--duplicate', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.rows).toHaveLength(2);
    const got = l.lines();
    expect(got).toHaveLength(2);
    expect(got[0]?.deliveryId).toBe(r.rows[0]?.deliveryId);
    expect(got[1]?.deliveryId).toBe(r.rows[0]?.deliveryId);
    expect(got.every((d) => d.verdict === 'valid')).toBe(true);
  });

  it('exits 8 when a valid delivery is refused (the listener has another secret)', async () => {
    const l = await listen();
    const r = await trigger(['--to', l.url, '-o', 'ndjson'], { RFS_WEBHOOK_SECRET: 'whsec_notthelistenerssecret000000000' });
    expect(r.code).toBe(8);
    expect(r.rows[0]).toMatchObject({ status: 401, answer: 'refused', expected: 'accepted', ok: false });
  });
});

describe('webhooks trigger, other receivers', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('exits 8 when a --stale delivery is accepted: the receiver should have refused it', async () => {
    receiver.answer = () => 204;
    const r = await trigger(['--to', receiver.url, '--stale', '-o', 'ndjson']);
    expect(r.code).toBe(8);
    expect(r.rows[0]).toMatchObject({ status: 204, answer: 'accepted', expected: 'refused', ok: false });
  });

  it('exits 8 when the receiver fails with a 5xx (not a refusal), and 8 when nothing listens', async () => {
    receiver.answer = () => 500;
    expect((await trigger(['--to', receiver.url, '--bad-signature', '-o', 'ndjson'])).code).toBe(8);
    const url = receiver.url;
    await receiver.close();
    receiver = await startReceiver();
    const r = await trigger(['--to', url, '-o', 'ndjson']);
    expect(r.code).toBe(8);
    expect(r.rows[0]).toMatchObject({ status: null, answer: 'failed', ok: false });
  });

  it('refuses plain http to another host and a URL with credentials, sending nothing (exit 2)', async () => {
    expect((await trigger(['--to', 'http://hooks.example.com/x'])).code).toBe(2);
    expect((await trigger(['--to', 'ftp://127.0.0.1/x'])).code).toBe(2);
    const r = await trigger(['--to', 'http://u:p@127.0.0.1:1/x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('credentials do not belong in the URL');
  });

  it('needs a secret: exit 2 naming the three ways, nothing sent', async () => {
    const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir } });
    expect(await runCli(['webhooks', 'trigger', '--to', receiver.url], t.io)).toBe(2);
    expect(t.stderr()).toContain('--secret-file');
    expect(receiver.received).toEqual([]);
  });
});

describe('webhooks trigger --recording', () => {
  let sandbox: RunningSandbox;
  let receiver: Receiver;
  const bodies: Buffer[] = [];
  beforeEach(async () => {
    sandbox = await startSandbox({ port: 0, recordings: 3, rateLimit: 0 });
    receiver = await startReceiver();
    receiver.answer = () => 200;
  });
  afterEach(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it('builds the payload of api.md from the recording fetched by id', async () => {
    const rec = await sandbox.control.createRecording({ title: 'Trigger me', status: 'COMPLETED' });
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const r = await trigger(['--to', `http://127.0.0.1:${port}/`, '--recording', rec.id, '-o', 'ndjson'], {
        RFS_API_KEY: sandbox.apiKeys.admin,
        RFS_BASE_URL: sandbox.baseUrl,
      });
      expect(r.code).toBe(0);
      const payload = WebhookPayload.parse(JSON.parse(bodies[0]?.toString('utf8') ?? ''));
      expect(payload).toMatchObject({ id: r.rows[0]?.deliveryId, event: 'recording.completed' });
      expect(payload.data).toMatchObject({ id: rec.id, title: 'Trigger me', status: 'COMPLETED', apiUrl: `/api/v1/recordings/${rec.id}` });
      expect(Object.keys(payload.data)).toEqual([
        'id',
        'title',
        'status',
        'priority',
        'author',
        'client',
        'matter',
        'createdAt',
        'updatedAt',
        'lastSyncedAt',
        'syncCount',
        'apiUrl',
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('exits 4 for a recording that does not exist, sending nothing', async () => {
    const r = await trigger(['--to', receiver.url, '--recording', 'rec_nope'], {
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    });
    expect(r.code).toBe(4);
    expect(receiver.received).toEqual([]);
  });
});
