// The address rfs prints opens the inspector once (docs/inspector.md, Trust): a browser started
// with it shows it on its command line (/proc/<pid>/cmdline, readable by every local user), so
// what it carries is a one-time code that the page swaps at load for this run's cookie (HttpOnly,
// SameSite=Strict). In Debian's chromium through playwright-core, against the built rfs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  CHROMIUM,
  delivery,
  entryOf,
  freshAddress,
  type Listener,
  post,
  replayApi,
  startApp,
  startListen,
  swapCode,
  waitFor,
} from './support.js';

vi.setConfig({ testTimeout: 60_000 });

let browser: Browser;
let work: string;
let app: Awaited<ReturnType<typeof startApp>>;
let listen: Listener;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-inspector-session-'));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  app = await startApp();
  listen = await startListen(work, { forwardTo: app.url });
  expect(await post(listen.receiverUrl, delivery('dlv_session_valid'))).toBe(201);
  await entryOf(listen.inspectorUrl, 'dlv_session_valid');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await listen?.stop();
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A page of a new browser (its own cookie jar) at `address`, with the list shown. */
async function open(address: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(address);
  await page.locator('#rows tr', { hasText: 'dlv_session_valid' }).first().waitFor();
  return { context, page };
}

/** Edits the delivery's body in the page and sends it; what the page said. */
async function sendEdited(page: Page, title: string): Promise<string> {
  await page.locator('#rows tr', { hasText: 'dlv_session_valid' }).first().locator('button').click();
  await page.click('#edit-replay');
  const area = page.locator('#edit-body');
  await area.fill((await area.inputValue()).replace(/"title": ?"[^"]*"/, `"title":"${title}"`));
  await page.click('#send-edited');
  const said = page.locator('#replay-result', { hasText: /edited, re-signed: HTTP|replay failed/ });
  await said.waitFor();
  return (await said.textContent()) ?? '';
}

it('swaps the code for an HttpOnly cookie once: the cookie works after a reload, a second use of the code and a request without the cookie are refused', async () => {
  const first = await open(listen.pageUrl);
  // The address bar keeps no copy of the code, and the page never holds the cookie's value.
  expect(new URL(first.page.url()).hash).toBe('');
  const [jar] = await waitFor('the cookie', async () => {
    const found = await first.context.cookies();
    return found.length > 0 ? found : undefined;
  });
  expect(jar).toMatchObject({ name: `rfs-inspector-${new URL(listen.inspectorUrl).port}`, httpOnly: true, sameSite: 'Strict', path: '/' });
  expect(await first.page.evaluate('document.cookie')).toBe('');

  let before = app.received.length;
  expect(await sendEdited(first.page, 'edited once')).toMatch(/^replay edited, re-signed: HTTP 201/);
  expect((await waitFor('the edited replay at the app', () => app.received[before])).body.toString('utf8')).toContain('edited once');

  // A reload has the cookie, not the code.
  await first.page.reload();
  await first.page.locator('#rows tr', { hasText: 'dlv_session_valid' }).first().waitFor();
  before = app.received.length;
  expect(await sendEdited(first.page, 'edited after a reload')).toMatch(/^replay edited, re-signed: HTTP 201/);
  await waitFor('the edited replay at the app', () => app.received[before]);

  // The same address in another browser (another user who read it off a command line): the code is dead.
  const second = await open(listen.pageUrl);
  expect(await second.context.cookies()).toEqual([]);
  before = app.received.length;
  // The page says it in the words of what to do (app.ts sessionRefused); the API's own words are trust.test.ts's.
  expect(await sendEdited(second.page, 'not mine to sign')).toMatch(/^replay failed: this page has no cookie of this run of the listener/);
  expect(app.received.length).toBe(before);
  const again = await swapCode(listen.pageUrl);
  expect(again.status).toBe(403);
  expect(again.setCookie).toBe('');
  const valid = await entryOf(listen.inspectorUrl, 'dlv_session_valid');
  const bare = await replayApi(listen.inspectorUrl, valid.id, { body: '{"amount":"1"}' });
  expect(bare.status).toBe(403);
  expect(app.received.length).toBe(before);

  // A fresh address (kill -USR2) opens it in that other browser, once.
  const fresh = await freshAddress(listen);
  expect(fresh).not.toBe(listen.pageUrl);
  // A page loaded anew (going to the same page with another `#` alone would load nothing).
  const other = await second.context.newPage();
  await other.goto(fresh);
  await other.locator('#rows tr', { hasText: 'dlv_session_valid' }).first().waitFor();
  await waitFor('the second cookie', async () => ((await second.context.cookies()).length > 0 ? true : undefined));
  expect(await sendEdited(other, 'edited in the other browser')).toMatch(/^replay edited, re-signed: HTTP 201/);
  expect((await swapCode(fresh)).status).toBe(403);
  await first.context.close();
  await second.context.close();
});
