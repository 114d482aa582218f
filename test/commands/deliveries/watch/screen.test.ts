// deliveries watch on a terminal (cli.md, deliveries): the full-screen view in a real
// terminal (tmux), at 80 and 120 columns, through an incident. Two subscriptions of a sandbox
// whose deliveries give up after two attempts 50 ms apart: one receiver stays up, the other is
// stopped (its deliveries turn FAILED, the sparkline rises), started again, and its FAILED
// deliveries replayed from the screen (r, y): the counts recover. Then q gives the terminal back
// (exit 0), and so does Ctrl-C (exit 130). Screens are compared exactly, with the random parts
// (ids, ports) masked at the same width; every failure happens in the watch's first minute,
// which is the sparkline's last cell.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';
import { api, until } from '../incident-support.js';

/** A receiver that answers 200, and that can be stopped and started again on its port. */
interface Switchable {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function switchableReceiver(): Promise<Switchable> {
  let port = 0;
  let server: Server | undefined;
  const start = async (): Promise<void> => {
    const s = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}/hook`,
    start,
    async stop() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

let sandbox: RunningSandbox;
let steady: Switchable;
let flaky: Switchable;
let home: string;
let term: Terminal;
const ids = { steady: '', flaky: '' };

beforeAll(async () => {
  // The view orders subscriptions by URL: the receiver on the lower port is the steady one.
  [steady, flaky] = [await switchableReceiver(), await switchableReceiver()].sort((a, b) => (a.url < b.url ? -1 : 1)) as [
    Switchable,
    Switchable,
  ];
  sandbox = await startSandbox({
    port: 0,
    recordings: 0,
    rateLimit: 0,
    deliveryAttempts: 2,
    deliveryBackoffMs: 50,
    deliveryTimeoutMs: 5000,
  });
  home = mkdtempSync(join(tmpdir(), 'rfs-watch-screen-'));
  term = await startTerminal(terminalEnv(home, { RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin }));
  for (const [name, receiver] of [
    ['steady', steady],
    ['flaky', flaky],
  ] as const) {
    const url = receiver.url.replace('/hook', `/${name}`);
    const made = (await api(sandbox, 'POST', '/webhooks', { url, events: ['recording.completed'] }, `screen-${name}`)) as {
      data: { id: string };
    };
    ids[name] = made.data.id;
  }
  await complete('First call');
  await until('2 SUCCEEDED deliveries', async () => (await sandbox.control.stats()).deliveries.succeeded === 2);
});
afterAll(async () => {
  await term?.stop();
  await sandbox?.close();
  await steady?.stop();
  await flaky?.stop();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

async function complete(title: string): Promise<void> {
  const rec = await sandbox.control.createRecording({ title, status: 'REVIEW_PENDING' });
  await sandbox.control.setStatus(rec.id, 'COMPLETED');
}

/** The screen with its random parts replaced at the same width: ids by their names, ports and delivery ids by #. */
function masked(screen: string): string {
  return (
    screen
      .replaceAll(ids.steady, `wh_${'steady'.padEnd(ids.steady.length - 3, '_')}`)
      .replaceAll(ids.flaky, `wh_${'flaky'.padEnd(ids.flaky.length - 3, '_')}`)
      .replace(/dlv_[A-Za-z0-9]+/g, (id) => `dlv_${'#'.repeat(id.length - 4)}`)
      .replace(/(127\.0\.0\.1:)(\d+)/g, (_all, host: string, port: string) => `${host}${'#'.repeat(port.length)}`)
      // The interval kept follows what the last poll cost (a retried request counts too, so a
      // loaded machine can make it 6 instead of 4): the budget's own tests pin those figures.
      .replace(/every [\d.]+ s \(\d+ requests a poll/, 'every # s (# requests a poll')
      // A failure's age moves with the clock: its cell keeps its width.
      .replace(/\b\d+[smhd] ago */g, (age) => '# ago'.padEnd(age.length))
  );
}

/** The screens, masked (see masked()): what an operator sees, at 80 and 120 columns. */
const SCREENS = {
  calm: {
    80: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 8 min',
      '    URL                       FAILED  PENDING  SUCCEEDED  LAST ERROR    FAIL/MIN',
      '>   127.0.0.1:#####/steady         0        0          1                       ▁',
      '    127.0.0.1:#####/flaky          0        0          1                       ▁',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      'wh_steady______________  http://127.0.0.1:#####/steady',
    ].join('\n'),
    120: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 30 min',
      '    URL                            FAILED  PENDING  SUCCEEDED  LAST ERROR                 FAIL/MIN',
      '>   http://127.0.0.1:#####/steady       0        0          1                                                          ▁',
      '    http://127.0.0.1:#####/flaky        0        0          1                                                          ▁',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      'wh_steady______________  http://127.0.0.1:#####/steady',
    ].join('\n'),
  },
  down: {
    80: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 8 min',
      '    URL                       FAILED  PENDING  SUCCEEDED  LAST ERROR    FAIL/MIN',
      '>   127.0.0.1:#####/steady         0        0          3                       ▁',
      '  ✗ 127.0.0.1:#####/flaky          2        0          1  ECONNREFUSE…         █',
      '',
      'LATEST FAILURES             AGE      LAST ERROR',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0…',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0…',
      '',
      '',
      '',
      '',
      '',
      '✗ started failing, ✓ recovered, while watched',
      'wh_steady______________  http://127.0.0.1:#####/steady',
    ].join('\n'),
    120: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 30 min',
      '    URL                            FAILED  PENDING  SUCCEEDED  LAST ERROR                 FAIL/MIN',
      '>   http://127.0.0.1:#####/steady       0        0          3                                                          ▁',
      '  ✗ http://127.0.0.1:#####/flaky        2        0          1  ECONNREFUSED: connect EC…                               █',
      '',
      'LATEST FAILURES             AGE      LAST ERROR',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:#####',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:#####',
      '',
      '',
      '',
      '',
      '',
      '✗ started failing, ✓ recovered, while watched',
      'wh_steady______________  http://127.0.0.1:#####/steady',
    ].join('\n'),
  },
  asked: {
    80: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 8 min',
      '    URL                       FAILED  PENDING  SUCCEEDED  LAST ERROR    FAIL/MIN',
      '    127.0.0.1:#####/steady         0        0          3                       ▁',
      '> ✗ 127.0.0.1:#####/flaky          2        0          1  ECONNREFUSE…         █',
      '',
      'LATEST FAILURES             AGE      LAST ERROR',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0…',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0…',
      '',
      '',
      '',
      '',
      '',
      '✗ started failing, ✓ recovered, while watched',
      'replay 2 FAILED deliveries of wh_flaky_______________? (y/N)',
    ].join('\n'),
    120: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 30 min',
      '    URL                            FAILED  PENDING  SUCCEEDED  LAST ERROR                 FAIL/MIN',
      '    http://127.0.0.1:#####/steady       0        0          3                                                          ▁',
      '> ✗ http://127.0.0.1:#####/flaky        2        0          1  ECONNREFUSED: connect EC…                               █',
      '',
      'LATEST FAILURES             AGE      LAST ERROR',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:#####',
      '  dlv_####################  # ago    ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:#####',
      '',
      '',
      '',
      '',
      '',
      '✗ started failing, ✓ recovered, while watched',
      'replay 2 FAILED deliveries of wh_flaky_______________? (y/N)',
    ].join('\n'),
  },
  recovered: {
    80: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 8 min',
      '    URL                       FAILED  PENDING  SUCCEEDED  LAST ERROR    FAIL/MIN',
      '    127.0.0.1:#####/steady         0        0          3                       ▁',
      '> ✓ 127.0.0.1:#####/flaky          0        0          3                       █',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '✗ started failing, ✓ recovered, while watched',
      'replayed 2 FAILED deliveries of wh_flaky_______________',
    ].join('\n'),
    120: [
      'deliveries watch, every # s (# requests a poll, budget 120 a minute)',
      '↑/↓ select   r replay FAILED   q quit   failures/min: last 30 min',
      '    URL                            FAILED  PENDING  SUCCEEDED  LAST ERROR                 FAIL/MIN',
      '    http://127.0.0.1:#####/steady       0        0          3                                                          ▁',
      '> ✓ http://127.0.0.1:#####/flaky        0        0          3                                                          █',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '✗ started failing, ✓ recovered, while watched',
      'replayed 2 FAILED deliveries of wh_flaky_______________',
    ].join('\n'),
  },
};

const WIDTHS = [80, 120] as const;
const pane = (columns: number): string => `watch${columns}`;

/** Waits on both panes, then returns their masked screens. */
async function both(check: (screen: string) => boolean, what: string, input = false): Promise<Record<number, string>> {
  const out: Record<number, string> = {};
  for (const columns of WIDTHS) {
    const wait = input ? term.waitForInput : term.waitFor;
    out[columns] = masked(await wait(pane(columns), (s) => check(masked(s)), `${what} at ${columns} columns`));
  }
  return out;
}

it('shows an incident and its recovery, replays from the screen, and gives the terminal back on q', async () => {
  for (const columns of WIDTHS)
    await term.run(pane(columns), ['deliveries', 'watch', '--interval', '0.2', '--budget', '120'], { columns, rows: 16 });

  /** The rows of the table: the lines whose counts are these. */
  const rows = (screen: string, counts: string): number =>
    (screen.match(new RegExp(`^[> ] [ ✗✓] (http://)?127.*\\s${counts}\\s`, 'gm')) ?? []).length;
  const calm = await both((s) => rows(s, '0\\s+0\\s+1') === 2, 'the steady state', true);
  expect(calm[80]).toBe(SCREENS.calm[80]);
  expect(calm[120]).toBe(SCREENS.calm[120]);

  // The receiver goes down: two more recordings, the flaky subscription's deliveries turn FAILED.
  await flaky.stop();
  await complete('Second call');
  await complete('Third call');
  await until('2 FAILED deliveries', async () => (await sandbox.control.stats()).deliveries.failed === 2);
  const down = await both((s) => rows(s, '2\\s+0\\s+1') === 1 && rows(s, '0\\s+0\\s+3') === 1 && s.includes('█'), 'the failures');
  expect(down[80]).toBe(SCREENS.down[80]);
  expect(down[120]).toBe(SCREENS.down[120]);

  // Back up; the flaky subscription selected, its FAILED deliveries replayed from the screen.
  await flaky.start();
  const asked: Record<number, string> = {};
  for (const columns of WIDTHS) {
    const name = pane(columns);
    // Rows come by URL: the flaky one is second.
    await term.keys(name, 'Down');
    await term.waitFor(
      name,
      (t) => masked(t).includes(`wh_flaky${'_'.repeat(15)}  http://127.0.0.1:#####/flaky`),
      'the flaky row selected',
    );
    await term.keys(name, 'r');
    asked[columns] = masked(await term.waitFor(name, (s) => s.includes('(y/N)'), 'the question'));
    expect(asked[columns]).toBe(SCREENS.asked[columns]);
    await term.keys(name, 'y');
  }
  const recovered = await both((s) => rows(s, '0\\s+0\\s+3') === 2 && s.includes('replayed 2'), 'the recovery');
  expect(recovered[80]).toBe(SCREENS.recovered[80]);
  expect(recovered[120]).toBe(SCREENS.recovered[120]);

  for (const columns of WIDTHS) {
    await term.keys(pane(columns), 'q');
    expect(await term.exitStatus(pane(columns))).toBe(0);
    // The alternate screen left: the terminal shows what it showed before rfs (nothing), not the view.
    expect(rfsLines(await term.screen(pane(columns)))).toEqual([]);
  }
});

it('lays the view out again when the terminal is resized', async () => {
  await term.run('resized', ['deliveries', 'watch', '--interval', '0.2', '--budget', '120'], { columns: 80, rows: 12 });
  const narrow = await term.waitForInput('resized', (s) => s.includes('last 8 min') && !s.includes('polling'), 'the view');
  expect(narrow.split('\n')[2]).toBe(SCREENS.calm[80].split('\n')[2]);
  await term.resize('resized', { columns: 120, rows: 12 });
  const wide = await term.waitFor('resized', (s) => s.includes('last 30 min'), 'the view at 120 columns');
  expect(wide.split('\n')[2]).toBe(SCREENS.calm[120].split('\n')[2]);
  // (What the terminal shows after the exit is not compared here: tmux keeps the alternate
  // screen of a resized window in the pane's history, which the capture includes.)
  await term.keys('resized', 'q');
  expect(await term.exitStatus('resized')).toBe(0);
});

it('gives the terminal back on Ctrl-C (exit 130)', async () => {
  await term.run('interrupted', ['deliveries', 'watch', '--interval', '0.2', '--budget', '120'], { columns: 80, rows: 12 });
  await term.waitForInput('interrupted', (s) => s.includes('SUCCEEDED') && !s.includes('polling'), 'the view');
  await term.keys('interrupted', 'C-c');
  expect(await term.exitStatus('interrupted')).toBe(130);
  expect(rfsLines(await term.screen('interrupted'))).toEqual(['interrupted (Ctrl-C): watch stopped']);
});

it('gives the terminal back before it reports an error it did not expect', async () => {
  // A service that answers the list of subscriptions with something that is not one.
  const broken = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": "not a list"}');
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', () => resolve()));
  try {
    const { port } = broken.address() as AddressInfo;
    await term.run('crashed', ['deliveries', 'watch', '--base-url', `http://127.0.0.1:${port}`], { columns: 80, rows: 12 });
    const code = await term.exitStatus('crashed');
    expect(code).not.toBe(0);
    const lines = rfsLines(await term.screen('crashed'));
    // The report, on the main screen; nothing of the view left there.
    expect(lines[0]).toMatch(/^error: /);
    expect(lines.filter((l) => /deliveries watch|FAIL\/MIN|polling/.test(l))).toEqual([]);
  } finally {
    broken.closeAllConnections();
    await new Promise<void>((resolve) => broken.close(() => resolve()));
  }
});
