// Tables and text in a real terminal: the built CLI runs in a private tmux server
// (its own -L socket, killed afterwards) at 60, 80, 120 and 200 columns, and each screen is
// compared exactly with the one recorded under test/tty/__screens__/ (RFS_TTY_RECORD=1 writes
// them anew; read the diff before committing one). The data is fixed (a scenario server), the
// dates old enough to show as dates, the zone UTC: a screen only changes when rfs does.
// A 20,000-recording --all must show progress and rows before the list has finished.
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, recording } from '../../helpers/fixtures.js';
import { needs, TMUX } from '../../helpers/platform.js';
import { startScenarioServer, type ScenarioServer } from '../../helpers/scenario-server.js';

const RFS_BIN = fileURLToPath(new URL('../../../bin/rfs.js', import.meta.url));
const SCREENS = fileURLToPath(new URL('../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const WIDTHS = [60, 80, 120, 200] as const;
const ROWS = 60;
const KEY = 'service_pk_ttyTablesKEY_0123456789';

let socket = '';
let home = '';
let env: NodeJS.ProcessEnv = {};
let serverStarted = false;

function tmux(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'tmux',
      ['-L', socket, '-f', '/dev/null', ...args],
      { env, timeout: 5000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args.join(' ')}: ${error.message} ${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

async function runInPane(name: string, width: number, args: string[], vars: Record<string, string>): Promise<void> {
  const e = Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', String(ROWS), ...e, '--', process.execPath, RFS_BIN, ...args);
}

/**
 * The pane as shown (not joined: a line wider than the pane shows as the terminal wrapped it),
 * with its history, or only what is on screen now; without tmux's own "Pane is dead" line.
 */
async function capture(name: string, o: { history?: boolean } = {}): Promise<string> {
  const range = o.history === false ? [] : ['-S', '-', '-E', '-'];
  const text = await tmux('capture-pane', '-p', ...range, '-t', name);
  const lines = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => !l.startsWith('Pane is dead'));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

async function dead(name: string): Promise<boolean> {
  return (await tmux('display-message', '-p', '-t', name, '#{pane_dead}')).trim() === '1';
}

async function waitForExit(name: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await dead(name))) {
    if (Date.now() > deadline) throw new Error(`rfs did not exit in ${name}:\n${await capture(name)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The screen, compared exactly with the recorded one. */
function expectScreen(file: string, screen: string): void {
  const path = join(SCREENS, file);
  if (RECORD || !existsSync(path)) {
    mkdirSync(SCREENS, { recursive: true });
    writeFileSync(path, `${screen}\n`);
    if (!RECORD) throw new Error(`no recorded screen ${file}: written now, check it and run again`);
  }
  expect(`${screen}\n`).toBe(readFileSync(path, 'utf8'));
}

const OLD = '2025-06-28T10:00:00.000Z';
const listRows = [
  recording(1, { title: 'Intake call', priority: 'LOW', updatedAt: OLD }),
  recording(2, {
    title: 'Quarterly review with Meridian Health Partners about the renewal of the master services agreement',
    author: { id: 'u2', name: 'Sofia O\u2019Connor', email: 's@x' },
    client: { id: 'c2', name: 'Meridian Health Partners', referenceNumber: 'C-2' },
    matter: { id: 'm2', name: 'Employment tribunal claim', referenceNumber: 'M-2' },
    updatedAt: OLD,
    syncCount: 2,
    lastSyncedAt: '2025-06-29T08:00:00.000Z',
  }),
  recording(3, { title: 'Site visit debrief: Okafor & Sons', status: 'ARCHIVED', priority: 'URGENT', updatedAt: OLD }),
];

const text = (t: string, bold = false) => (bold ? { type: 'text', text: t, marks: [{ type: 'bold' }] } : { type: 'text', text: t });
const para = (...c: unknown[]) => ({ type: 'paragraph', content: c });
const item = (t: string) => ({ type: 'listItem', content: [para(text(t))] });
const detail = {
  ...recording(2, listRows[1]),
  audioDuration: 518,
  audioSize: 8_302_968,
  createdAt: '2025-06-27T17:54:00.000Z',
  transcript:
    'Sofia O\u2019Connor: The counterparty proposed a settlement which the client considers too low. We discussed whether mediation would be worth trying before issuing proceedings.\n\nLiam Patel: I will check the title documents and report back by Friday.',
  notes: [
    {
      id: 'blk_note1',
      templateName: 'Meeting summary',
      templateId: 'tpl_1',
      schemaVersion: 1,
      contentRevision: 1,
      sortOrder: 1,
      createdAt: OLD,
      contentText: 'Meeting summary\n\n…',
      contentStatus: 'available',
      contentJson: {
        type: 'doc',
        content: [
          { type: 'heading', attrs: { level: 2 }, content: [text('Meeting summary')] },
          para(
            text('Key point: ', true),
            text('the landlord has indicated that a rent review is likely next year, so the lease terms need another look.'),
          ),
          { type: 'heading', attrs: { level: 3 }, content: [text('Next steps')] },
          {
            type: 'bulletList',
            content: [item('Instruct counsel for an opinion on the indemnity clause before the hearing'), item('Book a room')],
          },
          { type: 'orderedList', attrs: { start: 1 }, content: [item('File the application with the court'), item('Serve it')] },
        ],
      },
    },
  ],
  documents: [
    {
      id: 'blk_doc1',
      templateName: 'Client letter draft',
      templateId: 'tpl_2',
      schemaVersion: 1,
      contentRevision: 1,
      sortOrder: 1,
      createdAt: OLD,
      contentText: null,
      contentStatus: 'unavailable',
    },
  ],
};

/** `count` recordings in pages of `limit`, each page answered after a short wait, as over a network. */
async function serveRecordings(
  count: number,
): Promise<{ url: string; pagesServed: () => number; limits: () => Set<string>; close: () => Promise<void> }> {
  let served = 0;
  const limits = new Set<string>();
  const http = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const limit = Number(q.get('limit') ?? '50');
    limits.add(q.get('limit') ?? '');
    const from = Number(q.get('cursor') ?? '0');
    const items = Array.from({ length: Math.min(limit, count - from) }, (_, i) =>
      recording(from + i + 1, { updatedAt: OLD, title: `Recording number ${from + i + 1} of the long list` }),
    );
    const next = from + items.length < count ? String(from + items.length) : null;
    served += 1;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(page(items, next, limit)));
    }, 10);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pagesServed: () => served,
    limits: () => limits,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'tables and text in a terminal at 60, 80, 120 and 200 columns (tmux)'), () => {
  let server: ScenarioServer;
  let stopServing: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-tables-'));
    socket = `rfs-tables-${process.pid}-${randomBytes(4).toString('hex')}`;
    env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMUX_TMPDIR: home, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
    await tmux('new-session', '-d', '-s', 'hold', '--', 'cat');
    serverStarted = true;
    await tmux('set-option', '-g', 'remain-on-exit', 'on');
    await tmux('set-option', '-g', 'history-limit', '50000');
  });

  afterAll(async () => {
    if (serverStarted) await tmux('kill-server').catch(() => undefined);
    await stopServing?.();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const vars = (base: string): Record<string, string> => ({
    RFS_BASE_URL: base,
    RFS_API_KEY: KEY,
    RFS_CONFIG_DIR: join(home, 'config'),
    NO_COLOR: '1',
    TZ: 'UTC',
  });

  for (const width of WIDTHS) {
    it(`recordings list and recordings get at ${width} columns`, async () => {
      server = await startScenarioServer();
      try {
        server.queue({ body: page(listRows, 'NEXTPAGE') }, { body: { data: detail } });
        await runInPane(`list${width}`, width, ['recordings', 'list'], vars(server.url));
        await waitForExit(`list${width}`);
        expectScreen(`recordings-list-${width}.txt`, await capture(`list${width}`));
        await runInPane(`get${width}`, width, ['recordings', 'get', 'rec_0002'], vars(server.url));
        await waitForExit(`get${width}`);
        expectScreen(`recordings-get-${width}.txt`, await capture(`get${width}`));
        server.verify();
      } finally {
        await server.close();
      }
    });
  }

  it('a 20,000-recording --all shows its first rows before the list has finished', { timeout: 60_000 }, async () => {
    // Pages of the API's shape, answered after 10 ms; unpaced (--rate 0), so 200 pages take
    // two seconds or more, not the minute and a half that 120 requests a minute would.
    const served = await serveRecordings(20_000);
    stopServing = served.close;
    const started = Date.now();
    await runInPane(
      'all',
      120,
      ['recordings', 'list', '--all', '--rate', '0', '--sync-state', 'all', '--status', 'completed'],
      vars(served.url),
    );
    let progressAfter: number | undefined;
    let firstRowsAfter: number | undefined;
    let finishedFirst = false;
    const deadline = Date.now() + 45_000;
    while (firstRowsAfter === undefined && Date.now() < deadline) {
      // Whether it had finished is asked before the screen is read: rows seen on a screen read
      // while it still ran were shown before the end.
      const finished = await dead('all');
      const screen = await capture('all', { history: false });
      if (progressAfter === undefined && /fetching recordings…|\d+ so far \(\d+ pages?\)/.test(screen))
        progressAfter = Date.now() - started;
      if (/^rec_\S+\s{2}/m.test(screen)) {
        firstRowsAfter = Date.now() - started;
        finishedFirst = finished;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(firstRowsAfter, 'rows never appeared').toBeDefined();
    expect(finishedFirst, `the first rows appeared only when the list had finished (${firstRowsAfter} ms)`).toBe(false);
    expect(progressAfter === undefined || progressAfter <= (firstRowsAfter ?? 0), 'progress shows while the first page is awaited').toBe(
      true,
    );
    await waitForExit('all', 45_000);
    expect(served.pagesServed()).toBe(200);
    expect(served.limits()).toEqual(new Set(['100']));
    const rows = (await capture('all')).split('\n');
    expect(rows[0]).toMatch(/^ID\s+TITLE\s+STATUS/);
    // One header (the width did not change), then every recording; no progress line left behind.
    expect(rows.filter((l) => l.startsWith('ID ')).length).toBe(1);
    expect(rows.filter((l) => /^rec_\S+\s{2}/.test(l)).length).toBe(Number(rows.length - 1));
    console.log(`tty: a 20,000-recording --all showed progress after ${progressAfter} ms, its first rows after ${firstRowsAfter} ms`);
  });
});
