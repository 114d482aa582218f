// rfs sync --listen: a verified recording.completed delivery starts a pass at once (polling
// stays the backup, here an hour away); a forged delivery is refused with 401 and logged.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { bufferIO } from '../../helpers/io.js';
import { closedPort } from '../../helpers/scenario-server.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await start({ rateLimit: 0, recordings: 6 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-listen-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

it('starts a pass within a second of a verified delivery, and refuses a forged one', async () => {
  const port = await closedPort();
  const created = await h.api('/webhooks', {
    method: 'POST',
    body: { url: `http://127.0.0.1:${port}/`, events: ['recording.completed'] },
    headers: { 'idempotency-key': 'sync-listen-test' },
  });
  expect(created.status).toBe(201);
  const secret = created.json.data.secret as string;

  const t = bufferIO({ env: syncEnv(h, dir, { RFS_WEBHOOK_SECRET: secret }) });
  const controller = new AbortController();
  const running = runCli(
    [
      'sync',
      '--exec',
      COMMAND,
      '--provider',
      'crm',
      '--journal',
      join(dir, 'j.jsonl'),
      '--listen',
      String(port),
      '--interval',
      '3600',
      // Unpaced: the first pass files every seeded recording, which at the default rate waits
      // real time for tokens (this run is on the real clock: webhooks arrive in real time).
      '--rate',
      '0',
      '-o',
      'ndjson',
    ],
    t.io,
    { signal: controller.signal },
  );
  try {
    await eventually(async () => (/pass done/.test(t.stderr()) ? true : undefined), 10_000);
    expect(t.stderr()).toContain(`listening for webhooks on http://127.0.0.1:${port}`);
    const firstPass = t.stdout().trim().split('\n').length;

    const rec = await h.control('/recordings', { title: 'Arrives by webhook' });
    const id = rec.json.data.id as string;
    const completedAt = Date.now();
    await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' });
    await eventually(async () => (t.stderr().includes(`webhook: ${id} completed: starting a pass`) ? true : undefined), 5000);
    expect(Date.now() - completedAt).toBeLessThan(1000);
    const line = await eventually(
      async () =>
        t
          .stdout()
          .trim()
          .split('\n')
          .slice(firstPass)
          .map((l) => JSON.parse(l))
          .find((r) => r.id === id),
      5000,
    );
    expect(line).toMatchObject({ ok: true, syncCount: 1 });

    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-service-signature': `sha256=${'0'.repeat(64)}`,
        'x-service-event': 'recording.completed',
        'x-service-delivery': 'dlv_forged',
      },
      body: JSON.stringify({ id: 'dlv_forged', event: 'recording.completed', data: { id } }),
    });
    expect(forged.status).toBe(401);
    await eventually(async () => (/refused a delivery \(mismatch\)/.test(t.stderr()) ? true : undefined), 2000);
  } finally {
    controller.abort();
  }
  expect(await running).toBe(0);
  // The listener is closed: nothing answers on its port any more.
  await expect(fetch(`http://127.0.0.1:${port}/`, { method: 'POST' })).rejects.toThrow();
});
