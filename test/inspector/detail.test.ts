// The inspector's page as deliveries change under it (cli.md, webhooks listen --inspect; sandbox.md,
// Inspecting it), in Debian's chromium through playwright-core, against the built rfs: an open
// detail follows its delivery (an edit in progress kept), the list holds the listener's bound,
// the keyboard moves from the row that has the focus, and a phone shows the detail as its own view
// with a way back.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { send, signed } from '../commands/webhooks/listen/support.js';
import {
  CHROMIUM,
  delivery,
  entryOf,
  freshAddress,
  type Listener,
  post,
  replayApi,
  SECRET,
  startApp,
  startListen,
  startRfs,
  swapCode,
  waitFor,
} from './support.js';

vi.setConfig({ testTimeout: 90_000 });

let browser: Browser;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-detail-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The data-id of the row whose button has the focus (null: none), as the page sees it. */
const FOCUSED_ROW = "document.activeElement?.closest('#rows tr')?.getAttribute('data-id') ?? null";
const focusedId = async (page: Page) => (await page.locator(':focus').getAttribute('id')) ?? '';

async function openPage(url: string, width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: width < 500 ? 844 : 900 } });
  await page.goto(url);
  await page.locator('#live', { hasText: 'live' }).waitFor();
  return page;
}

describe('rfs sandbox --inspect: an open detail follows its delivery', () => {
  it('shows SUCCEEDED and HTTP 200 once a failing delivery succeeds, while it is open', async () => {
    let failing = true;
    const receiver: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(failing ? 500 : 200).end(failing ? 'down' : 'ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const sandbox = await startRfs(
      ['sandbox', '--port', '0', '--seed', '42', '--inspect', '127.0.0.1:0', '--delivery-attempts', '6', '--delivery-backoff', '100'],
      {},
      /rfs sandbox is listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*inspector on (http:\/\/127\.0\.0\.1:\d+\/)/,
    );
    try {
      const base = sandbox.match[1] as string;
      const admin = await waitFor('the admin key in the banner', () => /^\s+admin\s+(service_pk_\S+)/m.exec(sandbox.stderr())?.[1]);
      const page = await openPage(sandbox.match[2] as string, 1440);
      const made = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'idempotency-key': 'detail-test-1' },
        body: JSON.stringify({
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
          events: ['recording.completed'],
        }),
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
      await page.locator('#rows tr', { hasText: '500' }).first().waitFor({ timeout: 15_000 });
      await page.locator('#rows tr').first().click();
      await page.locator('#exchanges .exchange', { hasText: 'HTTP 500' }).first().waitFor();
      await expect(page.locator('#facts').textContent()).resolves.not.toContain('SUCCEEDED');
      failing = false;
      await page.locator('#rows tr', { hasText: 'SUCCEEDED' }).waitFor({ timeout: 15_000 });
      // The detail says what the row says, not what it said when it was opened.
      await page.locator('#facts dd', { hasText: 'SUCCEEDED' }).waitFor({ timeout: 5000 });
      await page.locator('#facts dd', { hasText: /^200$/ }).waitFor({ timeout: 5000 });
      await page.locator('#exchanges .exchange h4', { hasText: 'HTTP 200' }).waitFor({ timeout: 5000 });
      // The sandbox's time of a delivery is its last attempt, said so, in one format with its date.
      const facts = await page
        .locator('#facts')
        .evaluate((dl) =>
          Object.fromEntries([...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
        );
      expect(facts.Arrived).toBeUndefined();
      expect(facts['Last attempt']).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(facts['Last attempt']?.slice(11)).toBe(await page.locator('#rows tr button').first().textContent());
      await page.close();
    } finally {
      expect(await sandbox.stop()).toBe(0);
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('rfs webhooks listen --inspect', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let listen: Listener;
  beforeAll(async () => {
    app = await startApp();
    listen = await startListen(work, { forwardTo: app.url });
    for (let i = 1; i <= 6; i++) expect(await post(listen.receiverUrl, delivery(`dlv_detail_row${i}`))).toBe(201);
    // The same delivery three times (two duplicates, alike but for their entry), and a title that reads backwards unless escaped.
    const twice = delivery('dlv_detail_twice');
    for (let i = 0; i < 3; i++) expect(await post(listen.receiverUrl, twice)).toBe(201);
    expect(await post(listen.receiverUrl, delivery('dlv_detail_bidi', { title: 'invoice \u202Efdp.exe\u202C done' }))).toBe(201);
    await entryOf(listen.inspectorUrl, 'dlv_detail_bidi');
  }, 60_000);
  afterAll(async () => {
    await listen?.stop();
    await app?.close();
  });

  it('keeps an edit in progress when the open delivery changes', async () => {
    const page = await openPage(await freshAddress(listen), 1440);
    await page.locator('#rows tr', { hasText: 'dlv_detail_row2' }).click();
    await page.locator('#facts dd', { hasText: /^dlv_detail_row2$/ }).waitFor();
    await page.click('#edit-replay');
    await page.fill('#edit-body', '{"edited":"in progress"}');
    const entry = await entryOf(listen.inspectorUrl, 'dlv_detail_row2');
    // A replay from elsewhere (a script) changes the delivery: the detail follows it.
    const { cookie } = await swapCode(await freshAddress(listen));
    expect((await replayApi(listen.inspectorUrl, entry.id, { resign: true, cookie })).status).toBe(200);
    await page.locator('#exchanges .exchange[data-label="replay re-signed"]').waitFor();
    await expect(page.locator('#edit-body').inputValue()).resolves.toBe('{"edited":"in progress"}');
    await expect(page.locator('#editor').isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('lists bidi and invisible characters of an edited body with where they are, and sends them only once told to', async () => {
    const page = await openPage(await freshAddress(listen), 1440);
    await page.locator('#rows tr', { hasText: 'dlv_detail_row3' }).click();
    await page.click('#edit-replay');
    const before = app.received.length;
    await page.fill('#edit-body', '{"title":"\u202Elive"}');
    await page.locator('#edit-hidden', { hasText: 'U+202E at line 1, column 11' }).waitFor();
    await expect(page.locator('#edit-diff-lines').textContent()).resolves.toContain('\\u202elive');
    await page.click('#send-edited');
    await page.locator('#replay-result', { hasText: 'not sent' }).waitFor();
    expect(app.received.length).toBe(before);
    await page.check('#edit-hidden-ok');
    await page.click('#send-edited');
    await page.locator('#replay-result', { hasText: 'replay edited, re-signed: HTTP 201' }).waitFor();
    expect(app.received.at(-1)?.body.toString('utf8')).toBe('{"title":"\u202Elive"}');
    await page.close();
  });

  it('says a whitespace-only change, a body that is not JSON and an empty body before sending', async () => {
    const page = await openPage(await freshAddress(listen), 1440);
    await page.locator('#rows tr', { hasText: 'dlv_detail_row3' }).click();
    await page.click('#edit-replay');
    const original = await page.locator('#edit-body').inputValue();
    await page.fill('#edit-body', `${original}\n`);
    await expect(page.locator('#edit-diff-lines').textContent()).resolves.toContain('whitespace-only change');
    await expect(page.locator('#edit-notes').textContent()).resolves.toBe('');
    await page.fill('#edit-body', '{"broken": ');
    await page.locator('#edit-notes', { hasText: 'not valid JSON' }).waitFor();
    await page.fill('#edit-body', '');
    await page.locator('#edit-notes', { hasText: 'empty' }).waitFor();
    await page.close();
  });

  it('finds a title by its escape as the list shows it, as well as by its text', async () => {
    const page = await openPage(await freshAddress(listen), 1440);
    await page.fill('#f-text', '\\u202efdp');
    await expect(page.locator('#rows tr').count()).resolves.toBe(1);
    await page.fill('#f-text', 'fdp.exe');
    await expect(page.locator('#rows tr').count()).resolves.toBe(1);
    await page.close();
  });

  it('says the listener may have been restarted, and where a fresh address is, when the page has no cookie of this run', async () => {
    const page = await openPage(`${listen.inspectorUrl}#${'A'.repeat(24)}`, 1440);
    await page.locator('#rows tr', { hasText: 'dlv_detail_row3' }).click();
    await page.click('#edit-replay');
    await page.fill('#edit-body', '{"edited":true}');
    await page.click('#send-edited');
    const said = page.locator('#replay-result', { hasText: 'restarted' });
    await said.waitFor();
    // The page's own words (the server's answer names no terminal).
    await expect(said.textContent()).resolves.toContain('printed one in its terminal');
    await page.close();
  });

  it('gives each row a name of its own, and an open edit box keeps the headings in order (axe)', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(await freshAddress(listen));
    await page.locator('#rows tr', { hasText: 'duplicate' }).first().waitFor();
    const names = await page.locator('#rows tr button').evaluateAll((b) => b.map((x) => x.getAttribute('aria-label')));
    expect(new Set(names).size).toBe(names.length);
    await page.locator('#rows tr', { hasText: 'dlv_detail_row3' }).click();
    await page.click('#edit-replay');
    await page.fill('#edit-body', '{"edited":true}');
    await page.addScriptTag({ content: axe.source });
    const found = await page.evaluate(async () => {
      const run = (globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string }[] }> } }).axe;
      return (await run.run({ runOnly: ['heading-order'] })).violations.map((v) => v.id);
    });
    expect(found).toEqual([]);
    await context.close();
  });

  it('moves with j/k and the arrows from the row that has the focus, and the focus follows', async () => {
    const page = await openPage(await freshAddress(listen), 1440);
    await page.locator('#rows tr').nth(5).waitFor();
    const ids = await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
    const focusedRow = () => page.evaluate<string | null>(FOCUSED_ROW);
    await page.locator('#rows tr').nth(4).locator('button').focus();
    await page.keyboard.press('j');
    expect(await focusedRow()).toBe(ids[5]);
    await page.keyboard.press('ArrowUp');
    expect(await focusedRow()).toBe(ids[4]);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('k');
    expect(await focusedRow()).toBe(ids[2]);
    await page.keyboard.press('ArrowDown');
    expect(await focusedRow()).toBe(ids[3]);
    await expect(page.locator('#rows tr[aria-current="true"]').getAttribute('data-id')).resolves.toBe(ids[3]);
    // In the text filter the arrows are the box's own: no row moves.
    await page.locator('#f-text').focus();
    await page.keyboard.press('ArrowDown');
    await expect(focusedId(page)).resolves.toBe('f-text');
    await expect(page.locator('#rows tr[aria-current="true"]').getAttribute('data-id')).resolves.toBe(ids[3]);
    await page.close();
  });

  it('at 390 px shows the detail as its own view, and Back or Escape returns to the row at its scroll position', async () => {
    const page = await openPage(await freshAddress(listen), 390);
    await page.locator('#rows tr').nth(5).waitFor();
    const target = page.locator('#rows tr').nth(4);
    const id = await target.getAttribute('data-id');
    await target.locator('button').scrollIntoViewIfNeeded();
    const scrolled = await page.evaluate<number>('window.scrollY');
    await target.locator('button').click();
    await page.locator('#raw-body').waitFor();
    const back = page.locator('#back-to-list');
    await expect(back.isVisible()).resolves.toBe(true);
    // Its own view: the detail starts at the top of the screen, the list is not shown.
    await expect(page.locator('#list').isVisible()).resolves.toBe(false);
    const top = await page.evaluate<number>("document.getElementById('detail').getBoundingClientRect().top + window.scrollY");
    expect(top).toBeLessThan(844);
    await page.keyboard.press('Escape');
    await expect(page.locator('#list').isVisible()).resolves.toBe(true);
    await expect(page.evaluate<string | null>(FOCUSED_ROW)).resolves.toBe(id);
    expect(Math.abs((await page.evaluate<number>('window.scrollY')) - scrolled)).toBeLessThan(5);
    await target.locator('button').click();
    await back.click();
    await expect(page.evaluate<string | null>(FOCUSED_ROW)).resolves.toBe(id);
    await expect(page.locator('#list').isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('holds the listener bound: the oldest rows go, and an open detail of one says it is no longer kept', async () => {
    const page = await openPage(await freshAddress(listen), 1440);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.locator('#rows tr', { hasText: 'dlv_detail_row1' }).click();
    await page.locator('#facts dd', { hasText: /^dlv_detail_row1$/ }).waitFor();
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 4 });
    const timestamp = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const id = `dlv_detail_bound${String(i + j).padStart(8, '0')}`;
          const body = JSON.stringify({ id, event: 'recording.completed', data: { id: 'rec_bound', title: `bound ${i + j}` } });
          return send(`${listen.receiverUrl}/`, {
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
    await page.locator('#rows tr', { hasText: 'dlv_detail_bound00000999' }).waitFor({ timeout: 30_000 });
    await page.locator('#count', { hasText: /^1000 deliveries/ }).waitFor({ timeout: 10_000 });
    await page.locator('#detail', { hasText: 'no longer kept' }).waitFor({ timeout: 10_000 });
    await page.fill('#f-text', 'dlv_detail_row');
    await expect(page.locator('#rows tr').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
