// The inspector in a real browser ("What it must show"): Debian's chromium driven by
// playwright-core, against the built rfs (bin/rfs.js) — rfs webhooks listen --inspect with a
// test app behind --forward-to, deliveries from the sandbox through `rfs webhooks trigger`, and
// rfs sandbox --inspect with a receiver that fails. Every wait is on a condition.
import { MAX_ENTRIES } from '../../src/inspector/history.js';
import { MAX_REFUSED_ENTRIES } from '../../src/inspector/listen-source.js';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs, startSandboxProcess, type SandboxProcess } from '../helpers/child.js';
import { send, signed } from '../commands/webhooks/listen/support.js';
import { CHROMIUM, type Child, LISTEN_READY, SECRET, startRfs, waitFor } from './support.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** The test app behind --forward-to: answers 201 with what it got, and keeps every request. */
async function startApp(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(201, { 'content-type': 'application/json', 'x-test-app': 'yes' });
      res.end(JSON.stringify({ app: 'test', seen: received.length, timestamp: req.headers['x-service-timestamp'] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

/** A request with exactly these headers (a browser cannot forge Host; a page elsewhere would send Origin). */
async function raw(url: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<number> {
  return (await send(url, { method, headers, body })).status;
}

let browser: Browser;
let work: string;
let sandbox: SandboxProcess;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  sandbox = await startSandboxProcess(['--seed', '35']);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('rfs webhooks listen --inspect', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let listen: Child & { match: RegExpMatchArray };
  let receiverUrl: string;
  let inspectorUrl: string;
  let page: Page;
  const history = () => join(work, 'history.jsonl');
  const env = () => ({ RFS_WEBHOOK_SECRET: SECRET, RFS_CONFIG_DIR: join(work, 'config'), XDG_STATE_HOME: join(work, 'state') });
  const startListen = async () => {
    listen = await startRfs(
      ['webhooks', 'listen', '--port', '0', '--forward-to', app.url, '--inspect', '127.0.0.1:0', '--history', history(), '-o', 'ndjson'],
      env(),
      LISTEN_READY,
    );
    receiverUrl = listen.match[1] as string;
    inspectorUrl = listen.match[2] as string;
  };
  const trigger = (extra: string[]) =>
    runRfs(['webhooks', 'trigger', '--to', `${receiverUrl}/`, ...extra], {
      env: { ...env(), RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin as string },
    });
  const row = (deliveryId: string) => page.locator('#rows tr', { hasText: deliveryId });

  beforeAll(async () => {
    app = await startApp();
    await startListen();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    // The address rfs printed: its one-time code is swapped for the run's cookie, which re-signing needs.
    await page.goto(`${inspectorUrl}#${listen.match[3] as string}`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await listen?.stop();
    await new Promise((resolve) => app?.server.close(resolve));
  });

  const ids: Record<string, string> = {};

  it('lists a valid, a stale and a badly signed delivery from the sandbox with their verdicts within 1 s', async () => {
    // A recording of the sandbox, as the service's payload holds it.
    const list = (await (
      await fetch(`${sandbox.baseUrl}/api/v1/recordings?limit=1`, { headers: { authorization: `Bearer ${sandbox.apiKeys.admin}` } })
    ).json()) as {
      data: { id: string }[];
    };
    const recording = list.data[0]?.id as string;
    for (const [name, flags, verdict] of [
      ['valid', [], 'valid'],
      ['stale', ['--stale'], 'stale'],
      ['bad', ['--bad-signature'], 'mismatch'],
    ] as const) {
      const run = await trigger(['--recording', recording, '--secret-env', 'RFS_WEBHOOK_SECRET', '-o', 'json', ...flags]);
      expect(run.code, run.stderr).toBe(0);
      const sent = JSON.parse(run.stdout) as { deliveryId: string }[];
      const id = sent[0]?.deliveryId as string;
      ids[name] = id;
      // Arrived before trigger exited: the row must be there within a second of that.
      await row(id).waitFor({ timeout: 1000 });
      await expect(row(id).locator('td').nth(1).textContent()).resolves.toBe(verdict);
    }
    expect(await page.locator('#rows tr').count()).toBe(3);
  });

  it("shows the valid one's raw body and the test app's answer", async () => {
    await row(ids.valid as string).click();
    await page.locator('#raw-body', { hasText: ids.valid as string }).waitFor();
    const rawBody = (await page.locator('#raw-body').textContent()) as string;
    expect(rawBody).toBe(app.received[0]?.body);
    const answer = page.locator('#exchanges .exchange').first();
    await expect(answer.locator('h4').textContent()).resolves.toMatch(/^forward: HTTP 201 in \d+ ms$/);
    await expect(answer.locator('.answer-body').textContent()).resolves.toBe(
      JSON.stringify({ app: 'test', seen: 1, timestamp: app.received[0]?.headers['x-service-timestamp'] }),
    );
  });

  it('replays re-signed: the app gets a fresh timestamp that verify-signature accepts, and the page shows its answer', async () => {
    const before = app.received.length;
    const original = Number(app.received[0]?.headers['x-service-timestamp']);
    // At least a second later, so that "fresh" can be told from the original timestamp.
    await waitFor('the next second', () => (Math.floor(Date.now() / 1000) > original ? true : undefined), 5000);
    await page.click('#replay-resigned');
    const got = await waitFor('the replay at the app', () => app.received[before]);
    const timestamp = got.headers['x-service-timestamp'] as string;
    expect(Number(timestamp)).toBeGreaterThan(original);
    expect(got.body).toBe(app.received[0]?.body);
    const body = join(work, 'replayed.json');
    writeFileSync(body, got.body);
    const verify = await runRfs(
      [
        'verify-signature',
        '--secret-env',
        'RFS_WEBHOOK_SECRET',
        '--timestamp',
        timestamp,
        '--signature',
        got.headers['x-service-signature'] as string,
        '--payload',
        body,
      ],
      { env: env() },
    );
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const shown = page.locator('#exchanges .exchange[data-label="replay re-signed"]');
    await shown.waitFor();
    await expect(shown.locator('.answer-body').textContent()).resolves.toContain(`"timestamp":"${timestamp}"`);
    await expect(page.locator('#replay-result').textContent()).resolves.toMatch(/^replay re-signed: HTTP 201 in \d+ ms$/);
  });

  it('downloads the body as a fixture that webhooks trigger --payload sends again', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-fixture')]);
    const fixture = join(work, 'fixture.json');
    await download.saveAs(fixture);
    expect(readFileSync(fixture, 'utf8')).toBe(app.received[0]?.body);
    const before = app.received.length;
    const run = await trigger(['--payload', fixture, '--secret-env', 'RFS_WEBHOOK_SECRET']);
    expect(run.code, run.stderr).toBe(0);
    await waitFor('the fixture at the app', () => app.received[before]);
    expect(app.received[before]?.body).toBe(readFileSync(fixture, 'utf8'));
    // The same delivery again: the listener says so.
    await page.locator('#rows tr', { hasText: 'duplicate' }).waitFor({ timeout: 1000 });
  });

  it('works with the keyboard only: j/k move, Enter opens, r replays', async () => {
    await page.reload();
    await page.locator('#rows tr').first().waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    const picked = page.locator('#rows tr[aria-current="true"]');
    await expect(picked.count()).resolves.toBe(1);
    const order = await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    await expect(picked.getAttribute('data-id')).resolves.toBe(order[0]);
    // Down to the valid one (oldest: the last row), open it, replay it.
    for (let i = 0; i < order.length; i++) await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.locator('#raw-body', { hasText: ids.valid as string }).waitFor();
    const before = app.received.length;
    await page.keyboard.press('r');
    await waitFor('the keyboard replay at the app', () => app.received[before]);
    await page.locator('#replay-result', { hasText: 'replay re-signed: HTTP 201' }).waitFor();
  });

  it('filters by verdict, status and text', async () => {
    await page.selectOption('#f-verdict', 'stale');
    await expect(page.locator('#rows tr').count()).resolves.toBe(1);
    await page.selectOption('#f-verdict', '');
    await page.selectOption('#f-status', '4');
    await expect(page.locator('#rows tr').count()).resolves.toBe(2);
    await page.selectOption('#f-status', '');
    await page.fill('#f-text', ids.bad as string);
    await expect(page.locator('#rows tr').count()).resolves.toBe(1);
    await page.fill('#f-text', '');
  });

  it('is usable at 390 px wide', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(inspectorUrl);
    await phone.locator('#rows tr').first().waitFor();
    await phone
      .locator('#rows tr', { hasText: ids.valid as string })
      .first()
      .click();
    await phone.locator('#raw-body').waitFor();
    const width = await phone.locator('html').evaluate((html) => html.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await phone.close();
  });

  it('refuses a foreign Host and a cross-origin POST; its HTML, JS and API answers hold no secret or key', async () => {
    const api = `${inspectorUrl}api/deliveries`;
    const host = new URL(inspectorUrl).host;
    expect(await raw(api, { host: 'attacker.example' })).toBe(403);
    expect(
      await raw(`${api}/1/replay`, { host, origin: 'http://attacker.example', 'content-type': 'application/json' }, 'POST', '{}'),
    ).toBe(403);
    expect(await raw(`${api}/1/replay`, { host, 'content-type': 'text/plain' }, 'POST', '{}')).toBe(415);
    const texts: string[] = [];
    for (const path of [
      '',
      'app.js',
      'app.css',
      'api/info',
      'api/deliveries',
      'api/deliveries/1',
      'api/deliveries/1/curl',
      'api/deliveries/1/body',
    ]) {
      const res = await fetch(`${inspectorUrl}${path}`);
      expect(res.status, path).toBe(200);
      texts.push(await res.text());
    }
    const all = texts.join('\n');
    expect(all).toContain(ids.valid);
    expect(all).not.toContain('whsec_');
    expect(all).not.toContain('service_pk_');
  });

  it('lists the same deliveries after a restart with the same --history, and keeps the history within its bound', async () => {
    const before = ((await (await fetch(`${inspectorUrl}api/deliveries`)).json()) as { data: { deliveryId: string }[] }).data.map(
      (d) => d.deliveryId,
    );
    expect(await listen.stop()).toBe(0);
    await startListen();
    await page.goto(inspectorUrl);
    await page
      .locator('#rows tr', { hasText: ids.valid as string })
      .first()
      .waitFor();
    const shown = await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.children[5]?.textContent));
    expect(shown).toEqual(before);

    // 1,500 more (signed here, refused or not does not matter to the bound): the file keeps the newest ≤ 1,000.
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 4 });
    const timestamp = Math.floor(Date.now() / 1000);
    const sent: string[] = [];
    for (let i = 0; i < 1500; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const id = `dlv_bound${String(i + j).padStart(15, '0')}`;
          sent.push(id);
          const body = JSON.stringify({ id, event: 'recording.completed', data: { id: 'rec_bound', title: `bound ${i + j}` } });
          return send(`${receiverUrl}/`, {
            agent,
            body,
            headers: {
              'content-type': 'application/json',
              'x-service-delivery': id,
              'x-service-event': 'recording.completed',
              'x-service-timestamp': String(timestamp),
              'x-service-signature': signed(SECRET, timestamp, body),
            },
          });
        }),
      );
    }
    agent.destroy();
    const newest = sent.at(-1) as string;
    await waitFor(
      'the newest delivery in the history',
      () => (readFileSync(history(), 'utf8').includes(newest) ? true : undefined),
      30_000,
    );
    // A line per delivery and per change, at most twice the deliveries kept (then the file is
    // written anew with them): the newest 1,000 that verified, and the refused ones apart.
    const lines = readFileSync(history(), 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(2 * (MAX_ENTRIES + MAX_REFUSED_ENTRIES));
    expect(statSync(history()).size).toBeLessThanOrEqual(50 * 1024 * 1024);
    const listed = ((await (await fetch(`${inspectorUrl}api/deliveries`)).json()) as { data: { id: string; verified: boolean }[] }).data;
    expect(listed.filter((d) => d.verified).length).toBe(MAX_ENTRIES);
    // The refused ones listed before the 1,500 were not pushed out by them.
    expect(listed.some((d) => !d.verified)).toBe(true);
    // A restart lists what was listed: the same 1,000, not the share a rewrite kept.
    expect(await listen.stop()).toBe(0);
    await startListen();
    const relisted = ((await (await fetch(`${inspectorUrl}api/deliveries`)).json()) as { data: { id: string }[] }).data;
    expect(relisted.map((d) => d.id)).toEqual(listed.map((d) => d.id));
  }, 120_000);
});

describe('rfs sandbox --inspect', () => {
  it('shows each attempt of a delivery to a failing receiver, with its error', async () => {
    const inspected = await startRfs(
      ['sandbox', '--port', '0', '--seed', '36', '--inspect', '127.0.0.1:0', '--delivery-attempts', '3', '--delivery-backoff', '50'],
      {},
      /rfs sandbox is listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*inspector on (http:\/\/127\.0\.0\.1:\d+\/)/,
    );
    try {
      const base = inspected.match[1] as string;
      const inspector = inspected.match[2] as string;
      // A port nothing listens on: bound, then closed.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await page.goto(inspector);
      await page.locator('#live', { hasText: 'live' }).waitFor();
      const admin = await adminKey(inspected);
      const made = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'idempotency-key': 'inspector-test-1' },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, events: ['recording.completed'] }),
      });
      expect(made.status).toBe(201);
      const rec = (await (
        await fetch(`${base}/_sandbox/recordings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      ).json()) as { data: { id: string } };
      await fetch(`${base}/_sandbox/recordings/${rec.data.id}/status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"status":"COMPLETED"}',
      });
      const failed = page.locator('#rows tr', { hasText: 'FAILED' });
      await failed.waitFor({ timeout: 15_000 });
      await failed.click();
      const attempts = page.locator('#exchanges .exchange');
      await waitFor('three attempts', async () => ((await attempts.count()) === 3 ? true : undefined));
      for (let i = 0; i < 3; i++) {
        await expect(attempts.nth(i).locator('h4').textContent()).resolves.toMatch(
          new RegExp(`^attempt ${i + 1}: connection refused \\(.*ECONNREFUSED.*\\) in \\d+ ms$`),
        );
      }
      // The request log of /api/v1 is there too, and no key reached the page.
      await page.locator('#request-rows tr', { hasText: '/api/v1/webhooks' }).first().waitFor();
      const html =
        (await page.content()) +
        (await (await fetch(`${inspector}api/requests`)).text()) +
        (await (await fetch(`${inspector}api/deliveries`)).text());
      expect(html).not.toContain('service_pk_');
      expect(html).not.toContain('whsec_');
      await page.close();
    } finally {
      expect(await inspected.stop()).toBe(0);
    }
  }, 60_000);
});

/** The admin key from the sandbox's banner on stderr (its stdout line is not read here). */
async function adminKey(sandboxChild: Child): Promise<string> {
  const found = await waitFor('the admin key in the banner', () => /^\s+admin\s+(service_pk_\S+)/m.exec(sandboxChild.stderr())?.[1]);
  return found;
}
