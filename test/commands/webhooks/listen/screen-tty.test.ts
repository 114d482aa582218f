// `webhooks listen` in a real terminal, started at 80 and at 120 columns and
// widened to 200 while it runs: each row is laid out at the width of the moment it arrives (the
// second row's title is whole at 200; the header is printed again when the columns shown
// change), VERDICT is as wide as its words, and a delivery received twice is marked
// `duplicate` rather than printed as a second identical `valid` row. The port and the clock
// change from run to run, so their digits are masked before the exact comparison.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needs, TMUX } from '../../../helpers/platform.js';
import { startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';
import { send, signed } from './support.js';

const SCREENS = fileURLToPath(new URL('../../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const SECRET = 'whsec_ttyListenSecret0123456789abcdef';

let home: string;
let term: Terminal;

function delivery(id: string, recordingId: string, title: string) {
  const ts = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ id, event: 'recording.completed', data: { id: recordingId, title } });
  const headers = {
    'content-type': 'application/json',
    'x-service-timestamp': String(ts),
    'x-service-signature': signed(SECRET, ts, body),
    'x-service-event': 'recording.completed',
    'x-service-delivery': id,
  };
  return { headers, body };
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'webhooks listen in a terminal'), () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-listen-'));
    term = await startTerminal(terminalEnv(home, { HOOK_SECRET: SECRET }));
  });
  afterAll(async () => {
    await term?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  // at 60 a row fits (it was 69 cells) with STATUS in it (RECORDING goes), and at 120 EVENT, one
  // value on every row, goes before a title is cut.
  for (const columns of [60, 80, 120]) {
    it(`started at ${columns} columns, widened to 200: rows at the width of the moment, duplicates marked`, async () => {
      const name = `listen-${columns}`;
      await term.run(name, ['webhooks', 'listen', '--port', '0', '--secret-env', 'HOOK_SECRET'], { columns, rows: 20 });
      const started = await term.waitFor(name, (s) => /listening on http:\/\/127\.0\.0\.1:\d+/.test(s), 'the port');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started)?.[1] ?? '';
      const rows = (s: string) => s.split('\n').filter((l) => l.includes('dlv_ttyListen')).length;

      const first = delivery(
        'dlv_ttyListenDelivery001',
        'rec_ttyListenRec0001',
        'Quarterly review with Meridian Health Partners (renewal)',
      );
      expect((await send(`${url}/`, first)).status).toBe(200);
      const firstScreen = await term.waitFor(name, (s) => rows(s) === 1, 'the first row');
      const firstRow = firstScreen.split('\n').find((l) => l.includes('dlv_ttyListenDelivery001')) ?? '';
      // The row fits the terminal, and EVENT (one value) is gone before the title would be cut.
      expect(firstRow.length).toBeLessThanOrEqual(columns);
      expect(firstRow).not.toContain('recording.completed');
      // STATUS at every width: an app's 500 must never read as a success.
      const firstHeader = firstScreen.split('\n').find((l) => l.includes('VERDICT')) ?? '';
      expect(firstHeader.split(/ {2,}/)).toContain('STATUS');
      expect(firstRow.slice(firstHeader.indexOf('STATUS'))).toMatch(/^200 /);

      await term.resize(name, { columns: 200, rows: 20 });
      // rfs learns the new width from SIGWINCH, already pending when resize-window returns; a
      // request it refuses (and says so) is a full turn of its event loop, so the next
      // delivery is laid out at the new width.
      expect((await send(`${url}/`, { method: 'GET' })).status).toBe(405);
      await term.waitFor(name, (s) => s.replace(/\s+/g, ' ').includes('refused a GET request'), 'the refused GET');
      const second = delivery(
        'dlv_ttyListenDelivery002',
        'rec_ttyListenRec0002',
        'Site visit debrief with Okafor & Sons about the warehouse lease',
      );
      expect((await send(`${url}/`, second)).status).toBe(200);
      await term.waitFor(name, (s) => rows(s) === 2, 'the second row');
      // The same delivery again, as a network retry or a replay sends it (api.md): still 200.
      expect((await send(`${url}/`, first)).status).toBe(200);
      await term.waitFor(name, (s) => rows(s) === 3, 'the duplicate');

      // Ctrl-C stops rfs (and the sh around it): the last thing rfs says is its own.
      const pid = await term.commandPid(name);
      await term.keys(name, 'C-c');
      await term.waitForExit(pid);
      const stopped = await term.waitFor(name, (s) => s.includes('stopped listening'), 'rfs to say it stopped');
      const port = new URL(url).port;
      const screen = stopped
        .split('\n')
        .filter((l) => !l.startsWith('Pane is dead'))
        .join('\n')
        .trimEnd()
        .replaceAll(`:${port}`, `:${'N'.repeat(port.length)}`)
        .replace(/\b\d\d:\d\d:\d\d\b/g, 'HH:MM:SS')
        // Notices wrap at words on a terminal, at the width rfs knows when it
        // writes them: the refused GET's warning races the SIGWINCH of the resize (the old or
        // the new width, from run to run), so it is read as one line.
        .replace(/warning: refused a GET request[\s\S]*?\(only POST is\)/, (w) => w.replace(/\s+/g, ' '));
      const file = join(SCREENS, `listen-${columns}.txt`);
      if (RECORD || !existsSync(file)) writeFileSync(file, `${screen}\n`);
      expect(screen).toBe(readFileSync(file, 'utf8').trimEnd());
      expect(screen.split('\n').filter((l) => /\bvalid\b/.test(l))).toHaveLength(2);
      expect(screen).toMatch(/duplicate +200 +dlv_ttyListenDelivery001/);
      expect(screen).toMatch(/stopped listening$/);
    });
  }
  // cli.md, Output: a live table's columns are chosen once from the terminal's width, not per
  // row. At 120 columns titles of 4 and of 70 characters arrive in turn: one header, and every
  // row in the same columns (EVENT, which says the same on every row, left out for the title).
  it('at 120 columns keeps one set of columns and one header whatever the titles', async () => {
    const name = 'listen-titles';
    await term.run(name, ['webhooks', 'listen', '--port', '0', '--secret-env', 'HOOK_SECRET'], { columns: 120, rows: 30 });
    const started = await term.waitFor(name, (s) => /listening on http:\/\/127\.0\.0\.1:\d+/.test(s), 'the port');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(started)?.[1] ?? '';
    const long = 'Quarterly review with Meridian Health Partners about the lease renewal';
    const titles = ['Call', long, 'Memo', long, 'Intake call', long];
    for (const [i, title] of titles.entries()) {
      const n = String(i + 1).padStart(3, '0');
      expect((await send(`${url}/`, delivery(`dlv_ttyListenTitles${n}`, `rec_ttyListenTitl${n}`, title))).status).toBe(200);
      await term.waitFor(name, (s) => s.includes(`dlv_ttyListenTitles${n}`), `row ${n}`);
    }
    const screen = await term.screen(name);
    const lines = screen.split('\n');
    const headers = lines.filter((l) => /^TIME\s+VERDICT\b/.test(l));
    expect(headers, screen).toHaveLength(1);
    expect(headers[0]).not.toContain('EVENT');
    const rows = lines.filter((l) => l.includes('dlv_ttyListenTitles'));
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row).not.toContain('recording.completed');
      expect(row.length).toBeLessThanOrEqual(120);
      // The title starts under TITLE in every row.
      expect(row.indexOf('rec_ttyListenTitl') + 22, row).toBe(headers[0]?.indexOf('TITLE'));
    }
    const pid = await term.commandPid(name);
    await term.keys(name, 'C-c');
    await term.waitForExit(pid);
  });
});
