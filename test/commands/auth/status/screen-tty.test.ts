// `auth status` in a real terminal, at 80 and 120 columns, against a sandbox
// (127.0.0.1, port 0) with two saved profiles: the base URL is shown whole (port included) and
// SCOPES, then KEY, are left out first; nothing wraps. The port changes from run to run, so
// its digits are masked (same width) before the screen is compared with the recorded one.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../../src/sandbox/index.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('../../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';

let home: string;
let term: Terminal;
let sandbox: RunningSandbox;

describe.skipIf(!TMUX.met)(needs(TMUX, 'auth status in a terminal'), () => {
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 42, recordings: 0, rateLimit: 0 });
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-status-'));
    mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
    const profiles = {
      main: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.admin },
      hooks: { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.webhooks },
    };
    writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ defaultProfile: 'main', profiles }), { mode: 0o600 });
    term = await startTerminal(terminalEnv(home));
  });
  afterAll(async () => {
    await term?.stop();
    await sandbox?.close();
    rmSync(home, { recursive: true, force: true });
  });

  for (const columns of [80, 120]) {
    it(`at ${columns} columns: the base URL whole, SCOPES and KEY left out first, no line wrapped`, async () => {
      const name = `status-${columns}`;
      await term.run(name, ['auth', 'status'], { columns, rows: 20 });
      const status = await term.exitStatus(name);
      const port = new URL(sandbox.baseUrl).port;
      const screen = rfsLines(await term.screen(name))
        .join('\n')
        .replaceAll(`:${port}`, `:${'N'.repeat(port.length)}`);
      const file = join(SCREENS, `auth-status-${columns}.txt`);
      if (RECORD) writeFileSync(file, `${screen}\n`);
      expect(screen).toBe(readFileSync(file, 'utf8').trimEnd());
      expect(status).toBe(0);
      const table = screen.split('\n').slice(0, 3);
      for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
      expect(table[1]).toContain(`http://127.0.0.1:${'N'.repeat(port.length)}`);
    });
  }
});
