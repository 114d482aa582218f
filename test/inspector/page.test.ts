// The inspector's page as a web page (cli.md, webhooks listen --inspect: Trust, keyboard-only use,
// 390 and 1,440 px, axe), in Debian's chromium through playwright-core, against the built rfs:
// native focus and activation, one replay per press and none in flight, no replay of what did not
// verify, an edited body replayed re-signed (verify-signature accepts it), Escape that clears a
// filter, text escaped as the terminal escapes it, no sideways scroll, and axe-core finding
// nothing serious or critical on either page. Screenshots for docs/inspector.md only when asked
// (RFS_UPDATE_DOCS=1).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runRfs } from '../helpers/child.js';
import {
  CHROMIUM,
  type Child,
  delivery,
  entryOf,
  freshAddress,
  IMAGES,
  type Listener,
  listenEnv,
  post,
  startApp,
  startListen,
  startRfs,
  UPDATE_DOCS,
  waitFor,
} from './support.js';

// A browser per test under a shared machine's load: more than the default 20 s.
vi.setConfig({ testTimeout: 60_000 });

let browser: Browser;
let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
let listen: Listener;
/** While set, the app holds its answers until it resolves: a replay stays in flight. */
let gate: Promise<void> | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-page-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  app = await startApp(async (received) => {
    await gate;
    return JSON.stringify({ app: 'test', seen: received.length, timestamp: received.at(-1)?.headers['x-service-timestamp'] });
  });
  listen = await startListen(work, { forwardTo: app.url });
  expect(
    await post(listen.receiverUrl, delivery('dlv_page_forged', { body: '{"amount":"1000000"}', signature: `sha256=${'0'.repeat(64)}` })),
  ).toBe(401);
  expect(await post(listen.receiverUrl, delivery('dlv_page_unsigned', { signature: null }))).toBe(401);
  // A title that reads backwards on the screen unless its bidi override is shown escaped.
  expect(await post(listen.receiverUrl, delivery('dlv_page_bidi', { title: 'invoice \u202Efdp.exe\u202C done' }))).toBe(201);
  expect(await post(listen.receiverUrl, delivery('dlv_page_valid', { title: 'Weekly planning' }))).toBe(201);
  await entryOf(listen.inspectorUrl, 'dlv_page_valid');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await listen?.stop();
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

async function openPage(width: number, o: { bypassCSP?: boolean; url?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 }, bypassCSP: o.bypassCSP ?? false });
  const page = await context.newPage();
  // Each address opens once: a new browser context gets a fresh one, as a user's other browser would.
  await page.goto(o.url ?? (await freshAddress(listen)));
  await page.locator('#live', { hasText: 'live' }).waitFor();
  await page.locator('#rows tr').first().waitFor();
  return page;
}

const row = (page: Page, deliveryId: string) => page.locator('#rows tr', { hasText: deliveryId });
const focusedId = async (page: Page) => (await page.locator(':focus').getAttribute('id')) ?? '';

/** Opens a delivery with the keyboard: focus on its row's button, Enter. */
async function openWithKeyboard(page: Page, deliveryId: string): Promise<void> {
  await row(page, deliveryId).locator('button').focus();
  await page.keyboard.press('Enter');
  await page.locator('#detail dd', { hasText: deliveryId }).first().waitFor();
}

/** axe-core's serious and critical violations on the page as it is. */
async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  // axe-core's own source, in the page (its CSP bypassed for this context only).
  await page.addScriptTag({ content: axe.source });
  const result = await page.evaluate(async () => {
    const run = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } })
      .axe;
    return (await run.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('keyboard', () => {
  it('reaches the rows with Tab, and Enter on a row opens it (the detail takes the focus)', async () => {
    const page = await openPage(1440);
    let onRow = false;
    for (let i = 0; i < 15 && !onRow; i++) {
      await page.keyboard.press('Tab');
      onRow = (await page.locator('#rows tr button:focus').count()) === 1;
    }
    expect(onRow).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#raw-body').waitFor();
    expect(await focusedId(page)).toBe('detail-heading');
    await page.close();
  });

  it('activates a focused button with Enter, once per press, and not again while that replay is in flight', async () => {
    const page = await openPage(1440);
    await openWithKeyboard(page, 'dlv_page_valid');
    const before = app.received.length;
    let open: () => void = () => undefined;
    gate = new Promise((resolve) => (open = resolve));
    await page.locator('#replay-resigned').focus();
    await page.keyboard.press('Enter');
    await waitFor('the replay at the app', () => app.received[before]);
    await expect(page.locator('#replay-resigned').getAttribute('aria-disabled')).resolves.toBe('true');
    // In flight: more presses, of the button and of r, send nothing more.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Enter');
    await page.locator('#detail-heading').focus();
    await page.keyboard.press('r');
    expect(await focusedId(page)).toBe('detail-heading');
    open();
    gate = undefined;
    await page.locator('#replay-result', { hasText: 'replay re-signed: HTTP 201' }).waitFor();
    await expect(page.locator('#replay-resigned').getAttribute('aria-disabled')).resolves.toBe('false');
    expect(app.received.length).toBe(before + 1);
    await page.close();
  });

  it('takes a held r (key repeat) as one press', async () => {
    const page = await openPage(1440);
    await openWithKeyboard(page, 'dlv_page_valid');
    const before = app.received.length;
    for (let i = 0; i < 30; i++) await page.keyboard.down('r');
    await page.keyboard.up('r');
    await page.locator('#replay-result', { hasText: 'HTTP 201' }).waitFor();
    await page.locator('#replay-resigned[aria-disabled="false"]').waitFor();
    expect(app.received.length).toBe(before + 1);
    await page.close();
  });

  it('never replays a delivery that did not verify: its buttons are off, r does nothing, and there is no edit box', async () => {
    const page = await openPage(1440);
    const before = app.received.length;
    for (const id of ['dlv_page_forged', 'dlv_page_unsigned']) {
      await openWithKeyboard(page, id);
      await page.locator('#not-replayable', { hasText: 'did not verify' }).waitFor();
      await expect(page.locator('#replay-resigned').getAttribute('aria-disabled')).resolves.toBe('true');
      await expect(page.locator('#editor').count()).resolves.toBe(0);
      // No signed command of it, and the signature it came with is not on the page.
      await expect(page.locator('#copy-curl').count()).resolves.toBe(0);
      // The forged one came with a signature: the page says one came, not its value. The unsigned one
      // had none, and the page says that, not that a header came.
      const detail = await page.locator('#detail').textContent();
      const why = await page.locator('#not-replayable').textContent();
      if (id === 'dlv_page_forged') {
        expect(detail).toContain('[received, not kept: the delivery did not verify');
        expect(why).toContain('a signature came with it (x-service-signature), but the delivery did not verify');
        expect(why).not.toContain('no x-service-signature header');
      } else {
        expect(detail).not.toContain('[received, not kept');
        expect(why).toContain('(missing): it came with no x-service-signature header.');
        expect(why).not.toMatch(/signature came|header says one came/);
      }
      expect(await page.content()).not.toMatch(/[0-9a-f]{64}/);
      // Clicked all the same (Playwright would wait for an enabled button): nothing is sent.
      await page.click('#replay-resigned', { force: true });
      await page.click('#replay-as-sent', { force: true });
      await page.keyboard.press('r');
      await expect(page.locator('#replay-result').textContent()).resolves.toBe('');
    }
    expect(app.received.length).toBe(before);
    await page.close();
  });

  it('clears a filter and its box together with Escape; an empty filtered list says no delivery matches', async () => {
    const page = await openPage(1440);
    const all = await page.locator('#rows tr').count();
    await page.fill('#f-text', 'nothing-is-called-this');
    await page.locator('#empty', { hasText: 'No delivery matches' }).waitFor();
    await expect(page.locator('#rows tr').count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await expect(page.locator('#f-text').inputValue()).resolves.toBe('');
    await expect(page.locator('#rows tr').count()).resolves.toBe(all);
    await expect(page.locator('#empty').isHidden()).resolves.toBe(true);
    await page.selectOption('#f-verdict', 'missing');
    await expect(page.locator('#rows tr').count()).resolves.toBe(1);
    await page.locator('#f-verdict').focus();
    await page.keyboard.press('Escape');
    await expect(page.locator('#f-verdict').inputValue()).resolves.toBe('');
    await expect(page.locator('#rows tr').count()).resolves.toBe(all);
    await page.close();
  });
});

it('shows a bidi override escaped, as the terminal does', async () => {
  const page = await openPage(1440);
  const title = await row(page, 'dlv_page_bidi').locator('td.title').textContent();
  expect(title).toBe('invoice \\u202efdp.exe\\u202c done');
  await openWithKeyboard(page, 'dlv_page_bidi');
  const shown = await page.locator('#detail').textContent();
  expect(shown).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  await page.close();
});

it('edits a verified delivery and replays it re-signed: the diff shown, the app’s answer shown, verify-signature accepts it', async () => {
  const page = await openPage(1440);
  await openWithKeyboard(page, 'dlv_page_valid');
  await page.click('#edit-replay');
  const area = page.locator('#edit-body');
  const original = await area.inputValue();
  const edited = original.replace('Weekly planning', 'Weekly planning (edited)');
  expect(edited).not.toBe(original);
  await area.fill(edited);
  await page.locator('#edit-diff-lines .removed', { hasText: '"title": "Weekly planning"' }).waitFor();
  await page.locator('#edit-diff-lines .added', { hasText: '"title": "Weekly planning (edited)"' }).waitFor();
  const before = app.received.length;
  await page.click('#send-edited');
  const got = await waitFor('the edited replay at the app', () => app.received[before]);
  expect(got.body.toString('utf8')).toBe(edited);
  const payload = join(work, 'edited.json');
  writeFileSync(payload, got.body);
  const verify = await runRfs(
    [
      'verify-signature',
      '--secret-env',
      'RFS_WEBHOOK_SECRET',
      '--timestamp',
      String(got.headers['x-service-timestamp']),
      '--signature',
      String(got.headers['x-service-signature']),
      '--payload',
      payload,
    ],
    { env: listenEnv(work) },
  );
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  const shown = page.locator('#exchanges .exchange[data-label="replay edited, re-signed"]').last();
  await shown.waitFor();
  await shown.locator('.diff .added', { hasText: 'Weekly planning (edited)' }).waitFor();
  await expect(shown.locator('.answer-body').textContent()).resolves.toContain(`"timestamp":"${got.headers['x-service-timestamp']}"`);
  await page.locator('#replay-result', { hasText: 'replay edited, re-signed: HTTP 201' }).waitFor();
  // The edited replay as the detail pane shows it: what was sent (the diff) and the app's answer.
  if (UPDATE_DOCS) await shown.screenshot({ path: join(IMAGES, 'inspector-edit.png') });
  await page.close();
});

describe('layouts', () => {
  it('at 390 px: no sideways scroll, every column of each row shown, the detail scrolled to on Enter', async () => {
    const page = await openPage(390);
    const scroll = () => page.locator('html').evaluate((html) => html.scrollWidth);
    expect(await scroll()).toBeLessThanOrEqual(390);
    const cells = await row(page, 'dlv_page_valid')
      .locator('td')
      .evaluateAll((tds) =>
        tds.map((td) => {
          const box = td.getBoundingClientRect();
          return {
            label: td.getAttribute('data-label'),
            left: box.left,
            right: box.right,
            width: box.width,
            clipped: td.scrollWidth > td.clientWidth + 1,
          };
        }),
      );
    expect(cells.map((c) => c.label)).toEqual(['Time', 'Verdict', 'Status', 'Target', 'Event', 'Delivery', 'Title', 'URL']);
    for (const c of cells) {
      expect(c.width, c.label).toBeGreaterThan(100);
      expect(c.left, c.label).toBeGreaterThanOrEqual(0);
      expect(c.right, c.label).toBeLessThanOrEqual(390);
      expect(c.clipped, c.label).toBe(false);
    }
    await openWithKeyboard(page, 'dlv_page_valid');
    // The detail is below the list on a phone: Enter brought it on screen.
    const heading = await page.locator('#detail-heading').boundingBox();
    expect(heading?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect(heading?.y ?? 1e9).toBeLessThan(844);
    expect(await scroll()).toBeLessThanOrEqual(390);
    if (UPDATE_DOCS) await page.screenshot({ path: join(IMAGES, 'inspector-390.png') });
    await page.close();
  });

  it('at 1,440 px: every column readable (the title at least 150 px), nothing cut', async () => {
    const page = await openPage(1440);
    expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(1440);
    const widths = await page.locator('#list thead th').evaluateAll((ths) => ths.map((th) => th.getBoundingClientRect().width));
    expect(widths.length).toBe(8);
    expect(widths[6]).toBeGreaterThanOrEqual(150);
    const clipped = await page.locator('#rows td').evaluateAll((tds) => tds.filter((td) => td.scrollWidth > td.clientWidth + 1).length);
    expect(clipped).toBe(0);
    if (UPDATE_DOCS) {
      await openWithKeyboard(page, 'dlv_page_valid');
      await page.screenshot({ path: join(IMAGES, 'inspector-1440.png') });
    }
    await page.close();
  });
});

describe('axe-core', () => {
  it.each([390, 1440])('finds nothing serious or critical on the listen page at %i px, with deliveries and one open', async (width) => {
    const page = await openPage(width, { bypassCSP: true });
    await openWithKeyboard(page, 'dlv_page_valid');
    await page.click('#edit-replay');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('finds nothing serious or critical on the sandbox page, with deliveries', async () => {
    const sandbox: Child & { match: RegExpMatchArray } = await startRfs(
      ['sandbox', '--port', '0', '--seed', '39', '--inspect', '127.0.0.1:0', '--delivery-attempts', '2', '--delivery-backoff', '50'],
      {},
      /rfs sandbox is listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*inspector on (http:\/\/127\.0\.0\.1:\d+\/)/,
    );
    try {
      const base = sandbox.match[1] as string;
      const admin = await waitFor('the admin key in the banner', () => /^\s+admin\s+(service_pk_\S+)/m.exec(sandbox.stderr())?.[1]);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const made = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'idempotency-key': 'inspector-page-axe' },
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
      for (const width of [390, 1440]) {
        const page = await openPage(width, { bypassCSP: true, url: sandbox.match[2] as string });
        const failed = page.locator('#rows tr', { hasText: 'FAILED' });
        await failed.waitFor({ timeout: 15_000 });
        await failed.locator('button').click();
        await page.locator('#exchanges .exchange').first().waitFor();
        expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        if (width === 1440) {
          // The list's Time is the latest attempt's.
          const inspector = sandbox.match[2] as string;
          const summary = ((await (await fetch(`${inspector}api/deliveries`)).json()) as { data: { id: string; at: string }[] }).data[0];
          const detail = (
            (await (await fetch(`${inspector}api/deliveries/${summary?.id}`)).json()) as { data: { exchanges: { at: string }[] } }
          ).data;
          expect(summary?.at).toBe(detail.exchanges.at(-1)?.at);
          const title = await page
            .locator('#list thead th')
            .nth(6)
            .evaluate((th) => th.getBoundingClientRect().width);
          expect(title).toBeGreaterThanOrEqual(150);
        }
        await page.close();
      }
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  }, 60_000);
});
