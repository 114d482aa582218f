// The inspector's list at 1,440 and 390 px, on both pages, with the detail pane closed and open
// (cli.md, webhooks listen --inspect: "usable at 390 px wide as at 1,440 (no sideways scroll,
// every column readable)"): measured in Debian's chromium through playwright-core, cell by cell.
// Each cell has a readable width, overlaps neither its neighbours nor the detail pane, an id
// stays on one line (whole, for the service's ids), a title or URL shows at least a dozen
// characters and keeps its whole text in a tooltip; the document never scrolls sideways; axe-core
// finds nothing serious or critical. The sandbox runs the incident scenario: hundreds of
// deliveries with real titles to three subscriptions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CHROMIUM,
  type Child,
  delivery,
  entryOf,
  freshAddress,
  IMAGES,
  type Listener,
  post,
  replayApi,
  startApp,
  startListen,
  startRfs,
  swapCode,
  UPDATE_DOCS,
} from './support.js';

// A browser and hundreds of rows under a shared machine's load: more than the default 20 s.
vi.setConfig({ testTimeout: 90_000 });

const COLUMNS = ['Time', 'Verdict', 'Status', 'Target', 'Event', 'Delivery', 'Title', 'URL'];
/** The narrowest each column may be, in CSS pixels (a title and a URL are held to a dozen characters instead). */
const MIN_WIDTH: Record<string, number> = { Time: 55, Verdict: 60, Status: 30, Target: 80, Event: 100, Delivery: 100, Title: 60, URL: 60 };
/** The service's delivery ids: `dlv_` and 20 characters, shown whole. */
const SERVICE_ID = /^dlv_[A-Za-z0-9]{20}$/;
const LONG_TITLE = `Quarterly planning with the whole litigation team, the client and opposing counsel ${'and more '.repeat(10)}`;

let browser: Browser;
let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
let listen: Listener;
let sandbox: Child & { match: RegExpMatchArray };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-layout-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  app = await startApp();
  listen = await startListen(work, { forwardTo: app.url });
  // The listener's rows: the service's id format, a long title, an id longer than any column, a
  // refused one with no signature, a path of its own (the URL column), and a replay (its ↻ mark).
  expect(await post(listen.receiverUrl, delivery('dlv_AbCdEfGhIjKlMnOpQrSt', { title: LONG_TITLE }))).toBe(201);
  expect(await post(listen.receiverUrl, delivery(`dlv_${'long'.repeat(20)}`, { title: 'Weekly planning' }))).toBe(201);
  expect(await post(listen.receiverUrl, delivery('dlv_ZyXwVuTsRqPoNmLkJiHg', { signature: null }))).toBe(401);
  const short = delivery('dlv_0123456789abcdefABCD', { title: 'Billing review' });
  expect(await post(`${listen.receiverUrl}/rfs-listen-build-host-4242`, short)).toBe(201);
  const replayed = await entryOf(listen.inspectorUrl, 'dlv_0123456789abcdefABCD');
  // Re-signed as the page does it: with the cookie a fresh address gives (the printed one is the pages' below).
  const { cookie } = await swapCode(await freshAddress(listen));
  expect((await replayApi(listen.inspectorUrl, replayed.id, { resign: true, cookie })).status).toBe(200);
  sandbox = await startRfs(
    ['sandbox', '--port', '0', '--scenario', 'incident', '--seed', '39', '--inspect', '127.0.0.1:0'],
    {},
    /rfs sandbox is listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*inspector on (http:\/\/127\.0\.0\.1:\d+\/)/,
  );
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await listen?.stop();
  await sandbox?.stop();
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Measured {
  label: string;
  text: string;
  tooltip: string | null;
  box: { left: number; right: number; top: number; bottom: number; width: number };
  /** The width the cell's text has on screen, and what its whole text would need on one line. */
  shownWidth: number;
  wholeWidth: number;
  /** What the first dozen characters need on one line. */
  dozenWidth: number;
  /** Lines the text takes. */
  lines: number;
}

/** Every cell of the first rows, as laid out now; the detail pane's box; the document's scroll width. */
function measure(page: Page): Promise<{ rows: Measured[][]; detail: Measured['box'] | null; scrollWidth: number }> {
  // In the page (the tests' TypeScript has no DOM library: the page's objects come through `html`).
  return page.locator('html').evaluate((html) => {
    const doc = html.ownerDocument;
    const boxOf = (r: Measured['box']): Measured['box'] => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width });
    /** The width a text needs on one line, in the font of `host`. */
    const probe = doc.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;left:0;top:0';
    doc.body.append(probe);
    const widthOf = (host: typeof html, text: string): number => {
      const style = doc.defaultView.getComputedStyle(host);
      probe.style.font = style.font;
      probe.style.letterSpacing = style.letterSpacing;
      probe.textContent = text;
      return probe.getBoundingClientRect().width;
    };
    const rows: Measured[][] = [...doc.querySelectorAll('#rows tr')].slice(0, 40).map((tr) =>
      [...tr.children].map((td): Measured => {
        const value = td.querySelector('.v') ?? td.querySelector('button') ?? td;
        const text: string = value.textContent ?? '';
        const range = doc.createRange();
        range.selectNodeContents(value);
        const lineTops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return {
          label: td.getAttribute('data-label') ?? '',
          text,
          tooltip: value.getAttribute('title'),
          box: boxOf(td.getBoundingClientRect()),
          shownWidth: value.getBoundingClientRect().width,
          wholeWidth: widthOf(value, text),
          dozenWidth: widthOf(value, [...text].slice(0, 12).join('')),
          lines: lineTops.size,
        };
      }),
    );
    probe.remove();
    const open: boolean = doc.querySelector('main')?.classList.contains('open') ?? false;
    const detail = open ? boxOf(doc.getElementById('detail').getBoundingClientRect()) : null;
    return { rows, detail, scrollWidth: doc.scrollingElement.scrollWidth as number };
  });
}

const overlap = (a: Measured['box'], b: Measured['box']): boolean =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

/** The checks of the file's header, on the page as it is laid out now. */
async function expectReadable(page: Page, width: number, what: string): Promise<void> {
  const { rows, detail, scrollWidth } = await measure(page);
  expect(scrollWidth, `${what}: the document's width`).toBeLessThanOrEqual(width);
  expect(rows.length, what).toBeGreaterThan(0);
  for (const row of rows) {
    expect(
      row.map((c) => c.label),
      what,
    ).toEqual(COLUMNS);
    for (const [i, c] of row.entries()) {
      const where = `${what}, ${c.label} "${c.text.slice(0, 40)}"`;
      expect(c.box.width, `${where}: its width`).toBeGreaterThanOrEqual(MIN_WIDTH[c.label] as number);
      expect(c.box.left, where).toBeGreaterThanOrEqual(0);
      expect(c.box.right, where).toBeLessThanOrEqual(width);
      for (const other of row.slice(i + 1)) expect(overlap(c.box, other.box), `${where} overlaps ${other.label}`).toBe(false);
      if (detail !== null) expect(overlap(c.box, detail), `${where} overlaps the detail pane`).toBe(false);
      if (c.label === 'Delivery') {
        expect(c.lines, `${where}: an id on one line`).toBe(1);
        if (SERVICE_ID.test(c.text)) expect(c.shownWidth + 0.5, `${where}: shown whole`).toBeGreaterThanOrEqual(c.wholeWidth);
      }
      if (c.label === 'Title' || c.label === 'URL') {
        expect(c.lines, `${where}: on one line`).toBe(1);
        // At least a dozen characters on screen, the rest after an ellipsis and in the tooltip.
        expect(c.shownWidth + 0.5, `${where}: a dozen characters shown`).toBeGreaterThanOrEqual(Math.min(c.dozenWidth, c.wholeWidth));
        if (c.text !== '–') expect(c.tooltip, `${where}: its tooltip`).not.toBeNull();
      }
    }
  }
}

/** axe-core's serious and critical violations on the page as it is. */
async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  await page.addScriptTag({ content: axe.source });
  const result = await page.evaluate(async () => {
    const run = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } })
      .axe;
    return (await run.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function openPage(url: string, width: number): Promise<Page> {
  // axe-core goes into the page as a script of its own: the page's CSP is bypassed for this context only.
  const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 }, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('#live', { hasText: 'live' }).waitFor();
  await page.locator('#rows tr').first().waitFor();
  return page;
}

const pages = [
  { name: 'the listener page', url: () => listen.pageUrl, rows: 4 },
  // Its 300-odd deliveries: the list holds the newest 50 at first (app.ts, WINDOW).
  { name: 'the sandbox page', url: () => sandbox.match[2] as string, rows: 50 },
];

describe.each(pages)('$name', ({ name, url, rows }) => {
  it.each([1440, 390])('at %i px: every column readable with the detail pane closed and open; axe finds nothing serious', async (width) => {
    const page = await openPage(url(), width);
    expect(await page.locator('#rows tr').count()).toBeGreaterThanOrEqual(rows);
    await expectReadable(page, width, `${name} at ${width} px, closed`);
    await page.locator('#rows tr button').first().click();
    await page.locator('#detail-heading').waitFor();
    if (width >= 760) await expectReadable(page, width, `${name} at ${width} px, open`);
    else {
      // A phone: the open detail is a view of its own in place of the list, no wider than the
      // screen, and Back to list shows the list again, as readable as before.
      await expect(page.locator('#list').isVisible()).resolves.toBe(false);
      await expect(page.locator('html').evaluate((html) => html.scrollWidth)).resolves.toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await page.click('#back-to-list');
      await expectReadable(page, width, `${name} at ${width} px, back from the detail`);
    }
    expect(await axeViolations(page)).toEqual([]);
    if (UPDATE_DOCS && name === 'the sandbox page' && width === 1440)
      await page.screenshot({ path: join(IMAGES, 'inspector-sandbox.png') });
    await page.context().close();
  });
});

describe('the URL column', () => {
  it('shows where each delivery went, escaped, and the text filter matches it', async () => {
    const page = await openPage(listen.pageUrl, 1440);
    const cell = page.locator('#rows tr', { hasText: 'dlv_0123456789abcdefABCD' }).locator('td.url .v');
    await expect(cell.textContent()).resolves.toBe('/rfs-listen-build-host-4242/');
    await expect(cell.getAttribute('title')).resolves.toBe(`${listen.receiverUrl}/rfs-listen-build-host-4242/`);
    await page.fill('#f-text', 'build-host-4242');
    await expect(page.locator('#rows tr').count()).resolves.toBe(1);
    await page.context().close();

    const sandboxPage = await openPage(sandbox.match[2] as string, 1440);
    const urlsOf = () =>
      sandboxPage
        .locator('#rows td.url .v')
        .evaluateAll((spans) => [...new Set(spans.map((s) => `${s.textContent} ${s.getAttribute('title')}`))]);
    // Every delivery in the list (it holds the newest 50 at first): Show more until none is left.
    while (await sandboxPage.locator('#more').isVisible()) await sandboxPage.click('#more');
    const urls = await urlsOf();
    // The incident's three subscriptions: healthy, failing, and the one deleted after its deliveries
    // failed; each shown from its host on, whole in its tooltip.
    expect(urls.length).toBe(3);
    for (const u of urls) expect(u).toMatch(/^(127\.0\.0\.1:\d+\/\S+) http:\/\/\1$/);
    const first = (urls[0] as string).split(' ')[0] as string;
    await sandboxPage.fill('#f-text', first.slice(first.indexOf('/')));
    expect(await urlsOf()).toEqual([urls[0]]);
    await sandboxPage.context().close();
  });
});
