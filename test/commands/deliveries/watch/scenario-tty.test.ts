// deliveries watch in a real terminal during `--scenario incident` ("What it must
// show": watch screens at 60, 80 and 120 during the scenario), the built CLI in a private tmux
// server: every line within the width in terminal cells, the subscriptions' rows told apart and
// readable (each URL shows its receiver's port and its path, cli.md: host:port and path), what
// the screen says below the table wrapped at words (no line of it ends cut), and after `POST /_sandbox/receivers/failing
// {"mode":"ok"}` and `deliveries replay --all-failed --yes` the failing subscription's row marked
// recovered (✓), waited for on the screen. The scenario's newest deliveries retry live and its
// ports are chosen at start, so properties are asserted, not exact screens.
//
// CJK error text: the sandbox records a receiver's answer as `HTTP <status>`, never its body, so
// no scenario delivery can carry CJK text. A small API server of this test's own serves two
// subscriptions on one host and FAILED deliveries whose error is Japanese (two cells a
// character): at 80 and 120 columns the rows and the latest failures stay within the width.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../../src/output/table.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';
import { until } from '../incident-support.js';

const SIZES = [60, 80, 120] as const;
const ROWS = 30;

/** Every line of the screen within `columns` terminal cells (a wider one would wrap and scroll the view). */
function expectWithin(screen: string, columns: number): void {
  const wide = screen.split('\n').filter((l) => displayWidth(l) > columns);
  expect(wide, `lines wider than ${columns} cells in:\n${screen}`).toEqual([]);
}

/** The subscriptions' rows: between the header (URL … FAIL/MIN) and the first blank line. */
function tableRows(screen: string): string[] {
  const lines = screen.split('\n');
  // At 60 columns the error column is headed ERROR (render.ts).
  const header = lines.findIndex((l) => /^ {4}URL +FAILED +PENDING +SUCCEEDED +(LAST )?ERROR/.test(l));
  if (header < 0) return [];
  const end = lines.findIndex((l, i) => i > header && l === '');
  return lines.slice(header + 1, end < 0 ? undefined : end);
}

/**
 * What the screen says after the latest failures (a bound, a notice, the selected
 * subscription) wraps at words: no line of it ends in a cut (`…`), and no word is split over two
 * lines (each line ends at a word the text has whole).
 */
function expectNoticesWhole(screen: string): void {
  const lines = screen.split('\n');
  const bound = lines.findIndex((l) => l.startsWith('50+: '));
  expect(bound, screen).toBeGreaterThan(0);
  for (const line of lines.slice(bound)) expect(line.endsWith('…'), `${line}\nin\n${screen}`).toBe(false);
  const said = lines.slice(bound).join(' ');
  expect(said).toContain('50+: a list came back full (50 rows); there are at least that many');
}

/** A row's URL as shown: after the selector and the mark, up to the two spaces before FAILED. */
const urlOf = (row: string): string => row.slice(4).split(/ {2,}/)[0] ?? '';

/** Polls the screen until `check` holds, up to `ms` (the terminal helper's own wait stops at 10 s). */
async function waitScreen(term: Terminal, name: string, check: (s: string) => boolean, what: string, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await term.screen(name);
    if (check(s)) return s;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'deliveries watch against --scenario incident, in a terminal'), () => {
  let sandbox: RunningSandbox;
  let term: Terminal;
  let home: string;
  const ports: Record<string, string> = {};

  beforeAll(async () => {
    // rateLimit 0: two watches at a budget of 120 and a replay of every FAILED delivery would
    // meet the workspace's 120 a minute, and this test is about the screen (the budget's is
    // watch-budget-process.test.ts).
    sandbox = await startSandbox({ port: 0, seed: 42, scenario: 'incident', rateLimit: 0 });
    for (const r of sandbox.scenario?.receivers ?? []) ports[r.name] = new URL(r.url).port;
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-watch-scenario-'));
    term = await startTerminal(terminalEnv(home, { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl }));
  }, 60_000);
  afterAll(async () => {
    await term?.stop();
    await sandbox?.close();
    if (home) rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it('rows told apart, readable and within the width at 60, 80 and 120 columns; the failing row marked ✓ once it recovers', async () => {
    expect(Object.keys(ports).sort()).toEqual(['deleted', 'failing', 'healthy']);
    const failingRow = (s: string): string | undefined => tableRows(s).find((r) => urlOf(r).includes(`:${ports.failing}`));
    const pids: number[] = [];
    for (const columns of SIZES) {
      const name = `watch-${columns}`;
      await term.run(name, ['deliveries', 'watch', '--budget', '120', '--interval', '1'], { columns, rows: ROWS });
      // The first poll drawn: both live subscriptions have a row.
      const first = await waitScreen(
        term,
        name,
        (s) => tableRows(s).filter((r) => urlOf(r).includes(`:${ports.healthy}`) || urlOf(r).includes(`:${ports.failing}`)).length === 2,
        `the rows of healthy and failing at ${columns} columns`,
        30_000,
      );
      expectWithin(first, columns);
      const rows = tableRows(first);
      const urls = rows.map(urlOf);
      // Told apart: every row's URL is its own, and the two live ones each show their receiver's port.
      expect(new Set(urls).size, first).toBe(urls.length);
      expect(urls.filter((u) => u.includes(`:${ports.healthy}`))).toHaveLength(1);
      expect(urls.filter((u) => u.includes(`:${ports.failing}`))).toHaveLength(1);
      // Readable: the receiver's port and its path whole (`127…:41235/failing` at 60).
      expect(urls, first).toContainEqual(expect.stringMatching(new RegExp(`:${ports.healthy}/healthy$`)));
      expect(urls, first).toContainEqual(expect.stringMatching(new RegExp(`:${ports.failing}/failing$`)));
      expectNoticesWhole(first);
      // The failing subscription is failing: FAILED deliveries counted, an error shown, not yet ✓.
      const row = failingRow(first) ?? '';
      expect(row.slice(4)).toMatch(/ {2}\d+\+? {2}/);
      expect(row[2]).not.toBe('✓');
      pids.push(await term.commandPid(name));
    }

    await sandbox.control.setReceiver('failing', 'ok');
    await term.run('replay', ['--rate', '0', 'deliveries', 'replay', '--all-failed', '--yes'], { columns: 120, rows: ROWS });
    // The deleted subscription's deliveries cannot be replayed: what counts is that it ended.
    await until('the replay to end', async () => /\[exit \d+\]/.test(await term.screen('replay')), 120_000);
    const replayed = await term.screen('replay');

    for (const columns of SIZES) {
      const name = `watch-${columns}`;
      const recovered = await waitScreen(
        term,
        name,
        (s) => failingRow(s)?.[2] === '✓',
        `the failing subscription marked recovered at ${columns} columns (the replay said:\n${replayed})`,
        90_000,
      );
      expectWithin(recovered, columns);
      expect(recovered).toContain('✓ recovered, while watched');
      const urls = tableRows(recovered).map(urlOf);
      expect(new Set(urls).size).toBe(urls.length);
    }

    for (const [i, columns] of SIZES.entries()) {
      await term.keys(`watch-${columns}`, 'q');
      expect(await term.exitStatus(`watch-${columns}`)).toBe(0);
      await term.waitForExit(pids[i] ?? 0);
    }
  }, 300_000);
});

/** An API server of this test's own: two subscriptions on one host, FAILED deliveries with a Japanese error. */
const CJK_ERROR = '受信側エラー：署名の検証に失敗しました（タイムスタンプが古すぎます）。再送してください。';

async function startCjkServer(): Promise<{ url: string; close(): Promise<void> }> {
  const subs = [
    { id: 'wh_cjk_orders', url: 'http://127.0.0.1:4001/receivers/orders', events: ['recording.completed'] },
    { id: 'wh_cjk_payments', url: 'http://127.0.0.1:4001/receivers/payments', events: ['recording.completed'] },
  ];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/api/v1/webhooks') return json({ data: subs, meta: { nextCursor: null } });
    if (url.pathname === '/api/v1/webhooks/deliveries') {
      const status = url.searchParams.get('status') ?? 'FAILED';
      const only = url.searchParams.get('subscriptionId');
      const data =
        status !== 'FAILED'
          ? []
          : subs
              .filter((s) => only === null || s.id === only)
              .flatMap((s, i) =>
                [1, 2, 3].map((n) => ({
                  id: `dlv_cjk_${i}_${n}`,
                  status: 'FAILED',
                  subscriptionId: s.id,
                  recordingId: `rec_cjk_${n}`,
                  attempts: 5,
                  lastAttemptAt: new Date(Date.now() - n * 1000).toISOString(),
                  lastResponseStatus: 400,
                  lastError: `HTTP 400 ${CJK_ERROR}`,
                })),
              );
      return json({ data, meta: { nextCursor: null } });
    }
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ title: 'not here', status: 404, code: 'RESOURCE_NOT_FOUND', requestId: 'req_cjk' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'deliveries watch with CJK error text, in a terminal'), () => {
  let api: { url: string; close(): Promise<void> };
  let term: Terminal;
  let home: string;

  beforeAll(async () => {
    api = await startCjkServer();
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-watch-cjk-'));
    term = await startTerminal(terminalEnv(home, { RFS_API_KEY: 'service_pk_cjk_0123456789abcdef', RFS_BASE_URL: api.url }));
  }, 30_000);
  afterAll(async () => {
    await term?.stop();
    await api?.close();
    if (home) rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  for (const columns of SIZES) {
    it(`at ${columns} columns the CJK error stays within the width, in the rows and in the latest failures`, async () => {
      const name = `cjk-${columns}`;
      await term.run(name, ['deliveries', 'watch', '--budget', '120', '--interval', '1'], { columns, rows: ROWS });
      const screen = await waitScreen(
        term,
        name,
        (s) => tableRows(s).length === 2 && s.includes('LATEST FAILURES'),
        `two rows and the latest failures at ${columns} columns`,
        30_000,
      );
      const pid = await term.commandPid(name);
      expectWithin(screen, columns);
      const rows = tableRows(screen);
      // The two subscriptions on one host told apart by their paths.
      expect(rows.map(urlOf).some((u) => u.endsWith('/orders'))).toBe(true);
      expect(rows.map(urlOf).some((u) => u.endsWith('/payments'))).toBe(true);
      // The CJK text is on screen in each row, cut to its column (at 80 columns one character of
      // it; at 60 the column has 8 cells, the URLs their port and path first: `HTTP 40…`).
      for (const row of rows) expect(row).toMatch(columns > 60 ? / {2}HTTP 400 受/ : / {2}HTTP 40…$/);
      const failures = rfsLines(screen).filter((l) => l.startsWith('  dlv_cjk_'));
      expect(failures.length).toBeGreaterThan(0);
      for (const line of failures) expect(line).toContain('受信側エラー');
      // The widest lines use the width without passing it: a count of code points would have let them pass it.
      expect(Math.max(...failures.map((l) => displayWidth(l)))).toBeGreaterThan(columns - 2);
      expect(Math.max(...failures.map((l) => [...l].length))).toBeLessThan(columns);
      await term.keys(name, 'q');
      expect(await term.exitStatus(name)).toBe(0);
      await term.waitForExit(pid);
    }, 60_000);
  }
});
