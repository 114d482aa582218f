// The sandbox inspector's GET /api/deliveries answers in the page's order (sandbox.md, Inspecting
// it; docs/inspector.md): newest first by the latest attempt, the rule of src/inspector/order.ts
// that the page sorts with too. A replay is one more attempt: the delivery made first, replayed
// last, comes first, where the order of creation put it last.
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { newestFirst } from '../../src/inspector/order.js';
import { SandboxSource } from '../../src/inspector/sandbox-source.js';
import { startInspector } from '../../src/inspector/server.js';
import { type Receiver, start, startReceiver, type Harness } from '../sandbox/helpers.js';
import { waitFor } from './support.js';

let harness: Harness | undefined;
let receiver: Receiver | undefined;
let inspector: { close(): Promise<void> } | undefined;
afterAll(async () => {
  await inspector?.close();
  await receiver?.close();
  await harness?.sandbox.close();
});

interface Row {
  id: string;
  at: string;
  verdict: string;
}

it('lists newest first by the latest attempt, as the page does: a replayed delivery moves to the top', async () => {
  harness = await start({ deliveryAttempts: 1, allowPrivateWebhooks: true });
  receiver = await startReceiver();
  const source = new SandboxSource(harness.sandbox);
  const server = await startInspector({
    host: '127.0.0.1',
    port: 0,
    source,
    assets: fileURLToPath(new URL('../../dist/inspector/', import.meta.url)),
    redact: (text) => text,
  });
  inspector = {
    close: async () => {
      await server.close();
      await source.close();
    },
  };
  const listed = async (): Promise<Row[]> => ((await (await fetch(`${server.url}api/deliveries`)).json()) as { data: Row[] }).data;
  const before = (await listed()).length;
  const made = await harness.api('/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'inspector-order' },
    body: { url: receiver.url, events: ['recording.completed'] },
  });
  expect(made.status).toBe(201);
  for (let i = 0; i < 2; i++) {
    const rec = await fetch(`${harness.base}/_sandbox/recordings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"status":"COMPLETED"}',
    });
    expect(rec.status).toBeLessThan(300);
    await receiver.waitFor(i + 1);
  }
  const two = await waitFor('two new delivered deliveries', async () => {
    const rows = await listed();
    return rows.length === before + 2 && rows.slice(0, 2).every((r) => r.verdict === 'SUCCEEDED') ? rows : undefined;
  });
  // Made second, attempted last: first.
  const [second, first] = two as [Row, Row];
  expect((await harness.api(`/webhooks/deliveries/${first.id}/replay`, { method: 'POST' })).status).toBeLessThan(300);
  await receiver.waitFor(3);
  const after = await waitFor('the replayed delivery first', async () => {
    const rows = await listed();
    return rows[0]?.id === first.id ? rows : undefined;
  });
  expect(after[1]?.id).toBe(second.id);
  expect(after.map((r) => r.id)).toEqual([...after].sort(newestFirst).map((r) => r.id));
}, 60_000);
