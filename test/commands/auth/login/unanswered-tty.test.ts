// Interactive `auth login` against a service that accepts connections and never answers
//, at 80 and 120 columns: a spinner says what rfs waits for after a
// second (not a blank screen for the whole timeout), --timeout is honoured, the URL is asked
// again instead of exit 6, and the typed key is not shown with a green ✔ before the service
// has judged it. The final screen is compared exactly (ports masked).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { page } from '../../../helpers/fixtures.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { type ScenarioServer, startScenarioServer } from '../../../helpers/scenario-server.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('../../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const KEY = 'service_pk_ttyHangKEY_0123456789';

let home: string;
let term: Terminal;
let good: ScenarioServer;
let silent: Server;
let silentUrl = '';
const sockets: Socket[] = [];

describe.skipIf(!TMUX.met)(needs(TMUX, 'auth login against a silent service'), () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-hang-'));
    good = await startScenarioServer();
    // Accepts every connection and never says a word.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    silentUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    term = await startTerminal(terminalEnv(home));
  });
  afterEach(() => good.verify());
  afterAll(async () => {
    await term?.stop();
    await good?.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    rmSync(home, { recursive: true, force: true });
  });

  for (const columns of [80, 120]) {
    it(`at ${columns} columns: a spinner after a second, the URL asked again, no ✔ on an unchecked key`, async () => {
      rmSync(join(home, 'config'), { recursive: true, force: true });
      const before = good.requests.length;
      good.queue({ expect: { url: '/api/v1/recordings?limit=1' }, body: page([], null, 1) });
      const name = `hang-${columns}`;
      await term.run(name, ['auth', 'login', '--timeout', '3'], { columns, rows: 24 });
      await term.waitForInput(name, (s) => s.includes('Service base URL'), 'the URL question');
      await term.keys(name, 'C-u');
      await term.keys(name, '-l', silentUrl);
      await term.keys(name, 'Enter');
      await term.waitForInput(name, (s) => s.includes('API key'), 'the key question');
      await term.keys(name, '-l', KEY);
      await term.keys(name, 'Enter');
      // Within the 3 s the silent service is given: the spinner says what rfs waits for.
      const waiting = await term.waitFor(name, (s) => s.includes(`checking the key with ${silentUrl}…`), 'the spinner');
      expect(waiting).not.toContain('✔ API key');
      const again = await term.waitForInput(name, (s) => s.split('Service base URL').length === 3, 'the URL asked again');
      // The warning wraps at words on a terminal.
      expect(again.replace(/\s+/g, ' ')).toContain('within 3 s');
      await term.keys(name, 'C-u');
      await term.keys(name, '-l', good.url);
      await term.keys(name, 'Enter');
      expect(await term.exitStatus(name)).toBe(0);
      const mask = (text: string, url: string) => {
        const port = new URL(url).port;
        return text.replaceAll(`:${port}`, `:${'N'.repeat(port.length)}`);
      };
      const screen = mask(mask(rfsLines(await term.screen(name)).join('\n'), silentUrl), good.url).replaceAll(home, '$HOME');
      const file = join(SCREENS, `login-unanswered-${columns}.txt`);
      if (RECORD) writeFileSync(file, `${screen}\n`);
      expect(screen).toBe(readFileSync(file, 'utf8').trimEnd());
      expect(screen).not.toContain('✔ API key');
      expect(good.requests.slice(before).map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`]);
    });
  }
});
