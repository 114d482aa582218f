// rfs sandbox --inspect's replay through the API (sandbox.md, Inspecting it): a delivery whose
// subscription was deleted gets a 404 from the API, and the inspector says what it is, as
// rfs deliveries replay does (cli.md, Deleted subscriptions), in the answer the page shows; the
// list already marks it not replayable, with that reason, and the page's button is off.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { SandboxSource } from '../../src/inspector/sandbox-source.js';
import { startInspector } from '../../src/inspector/server.js';
import { start, type Harness } from '../sandbox/helpers.js';
import { CHROMIUM, waitFor } from './support.js';

let harness: Harness | undefined;
let inspector: { url: string; close(): Promise<void> } | undefined;
afterAll(async () => {
  await inspector?.close();
  await harness?.sandbox.close();
});

it("says that a delivery's subscription was deleted when the API answers its replay 404", async () => {
  harness = await start({ deliveryAttempts: 1, deliveryBackoffMs: 10, allowPrivateWebhooks: true });
  const source = new SandboxSource(harness.sandbox);
  const server = await startInspector({
    host: '127.0.0.1',
    port: 0,
    source,
    // The page's files as the build makes them (the global set-up builds dist/).
    assets: fileURLToPath(new URL('../../dist/inspector/', import.meta.url)),
    redact: (text) => text,
  });
  inspector = {
    url: server.url,
    close: async () => {
      await server.close();
      await source.close();
    },
  };
  // A port nothing listens on: bound, then closed.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const made = await harness.api('/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'inspector-deleted-sub' },
    body: { url: `http://127.0.0.1:${port}/hooks`, events: ['recording.completed'] },
  });
  expect(made.status).toBe(201);
  const subscription = (made.json as { data: { id: string } }).data.id;
  const rec = await fetch(`${harness.base}/_sandbox/recordings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"status":"COMPLETED"}',
  });
  expect(rec.status).toBeLessThan(300);
  const url = inspector.url;
  const failed = await waitFor('the FAILED delivery', async () => {
    const list = ((await (await fetch(`${url}api/deliveries`)).json()) as { data: { id: string; verdict: string; replayable: boolean }[] })
      .data;
    return list.find((d) => d.verdict === 'FAILED');
  });
  expect(failed).toMatchObject({ replayable: true });
  expect((await harness.api(`/webhooks/${subscription}`, { method: 'DELETE' })).status).toBeLessThan(300);
  const gone = `subscription ${subscription} was deleted: its deliveries cannot be replayed`;
  const listed = ((await (await fetch(`${url}api/deliveries`)).json()) as { data: { id: string }[] }).data.find((d) => d.id === failed.id);
  expect(listed).toMatchObject({ replayable: false, whyNotReplayable: gone });
  // The page: the delivery opened, its Replay (API) button off and the reason said.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url);
    await page.locator('#rows tr', { hasText: 'FAILED' }).first().click();
    await page.locator('#not-replayable').waitFor();
    expect(await page.locator('#not-replayable').textContent()).toBe(`Not replayed: ${gone}.`);
    expect(await page.locator('#replay-as-sent').getAttribute('aria-disabled')).toBe('true');
  } finally {
    await browser.close();
  }
  const replay = await fetch(`${url}api/deliveries/${failed.id}/replay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(replay.status).toBe(404);
  expect(((await replay.json()) as { error: string }).error).toMatch(
    new RegExp(`^subscription ${subscription} was deleted: its deliveries cannot be replayed \\(the API answered 404: .+\\)$`),
  );
}, 60_000);
