// The inspector's page at real scale (cli.md, webhooks listen --inspect; sandbox.md, Inspecting
// it): rfs sandbox --scenario incident --inspect with its deliveries copied past 3,000 (through
// PUT /_sandbox/state), in Debian's chromium through playwright-core. A keystroke in the text
// filter is measured inside the page, from its input event to the frame that shows the filtered
// list, and the list holds at most its window of rows. The bound is generous (a loaded 2-core
// machine); the figures themselves go in bench/RESULTS.md.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, type Child, startRfs } from './support.js';

/** The rows the page puts in its list at first (app.ts, WINDOW). */
const WINDOW = 50;
const DELIVERIES = 3200;
/** What is typed into the text filter: letters no scenario id is likely to hold in a row. */
const TYPED = 'qzxjkvwy';

let browser: Browser;
let sandbox: Child & { match: RegExpMatchArray };
let page: Page;

interface Stored {
  id: string;
  recordingId: string;
  [key: string]: unknown;
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  sandbox = await startRfs(
    ['sandbox', '--port', '0', '--seed', '41', '--scenario', 'incident', '--inspect', '127.0.0.1:0'],
    {},
    /rfs sandbox is listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*inspector on (http:\/\/127\.0\.0\.1:\d+\/)/,
  );
  const base = sandbox.match[1] as string;
  const state = (await (await fetch(`${base}/_sandbox/state?includeSeed=1`)).json()) as { deliveries: Stored[] };
  const originals = state.deliveries;
  expect(originals.length).toBeGreaterThan(0);
  // Copies of the scenario's deliveries under new ids, finished ones. Copy i's id holds the first
  // 1 + i % 8 letters of TYPED (then digits): each letter typed matches fewer of them.
  const copies: Stored[] = [];
  for (let i = 0; originals.length + copies.length < DELIVERIES; i++) {
    const from = originals[i % originals.length] as Stored;
    const letters = TYPED.slice(0, 1 + (i % TYPED.length));
    const id = `dlv_${letters}${String(i).padStart(20 - letters.length, '0')}`;
    copies.push({ ...from, id, status: i % 3 === 0 ? 'FAILED' : 'SUCCEEDED' });
  }
  state.deliveries = [...originals, ...copies];
  const put = await fetch(`${base}/_sandbox/state`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(state),
  });
  expect(put.status, await put.text()).toBeLessThan(300);
  const inspector = sandbox.match[2] as string;
  const listed = (await (await fetch(`${inspector}api/deliveries`)).json()) as { data: unknown[] };
  expect(listed.data.length).toBeGreaterThanOrEqual(DELIVERIES);
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const loading = Date.now();
  await page.goto(inspector);
  await page.locator('#count', { hasText: String(listed.data.length) }).waitFor({ timeout: 60_000 });
  console.log(`${listed.data.length} deliveries: the page listed them in ${Date.now() - loading} ms`);
}, 120_000);
afterAll(async () => {
  await page?.close();
  await browser?.close();
  expect(await sandbox?.stop()).toBe(0);
});

/**
 * Types `text` into the text filter a character at a time, in the page (its own script, as a
 * string: this file is typed for Node, not the DOM); the milliseconds each took, from its input
 * event to the first frame that shows the count of what it filtered (each letter of TYPED matches
 * fewer deliveries). The next keystroke comes after one more frame, as a person types.
 */
function typeMeasured(p: Page, text: string): Promise<number[]> {
  return p.evaluate<number[]>(`(async (typed) => {
    const box = document.getElementById('f-text');
    const count = document.getElementById('count');
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
    const took = [];
    for (const ch of typed) {
      const before = count.textContent;
      const start = performance.now();
      box.value += ch;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      for (;;) {
        const at = await frame();
        if (count.textContent !== before) {
          took.push(at - start);
          break;
        }
        if (at - start > 60000) throw new Error('the filter ' + box.value + ' never changed the count');
      }
      await frame();
    }
    return took;
  })(${JSON.stringify(text)})`);
}

describe('the sandbox page with 3,200 deliveries', () => {
  it('holds at most its window of rows, says how many match, and shows more when asked', async () => {
    expect(await page.locator('#rows tr').count()).toBeLessThanOrEqual(WINDOW);
    await expect(page.locator('#count').textContent()).resolves.toMatch(new RegExp(`showing ${WINDOW} of \\d+`));
    await page.click('#more');
    await expect(page.locator('#rows tr').count()).resolves.toBe(2 * WINDOW);
    await expect(page.locator('#count').textContent()).resolves.toMatch(new RegExp(`showing ${2 * WINDOW} of \\d+`));
  });

  it('filters on each keystroke within a second, most within half of one, measured in the page', async () => {
    const took = await typeMeasured(page, TYPED);
    console.log(`filter keystrokes (ms): ${took.map((t) => t.toFixed(0)).join(' ')}`);
    // Under a load of 12-17 on 2 cores a changed window of rows costs 250-450 ms to lay out and
    // paint: every keystroke under a second, most under half of one (before: 2.3-50 s each).
    const sorted = [...took].sort((a, b) => a - b);
    expect(Math.max(...took)).toBeLessThan(1000);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(500);
    expect(await page.locator('#rows tr:not([hidden])').count()).toBeGreaterThan(0);
    expect(await page.locator('#rows tr').count()).toBeLessThanOrEqual(WINDOW);
  }, 600_000);
});
