// `recordings list --all`: progress on a terminal's stderr whatever stdout is
// (`-o json > big.json` sat on a blank screen), and the notice after an --all stopped by
// --max-items offers the cursor, never "--all" again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, recording } from '../../../helpers/fixtures.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { scenarioCli } from '../../../helpers/scenario-cli.js';
import { type ScenarioServer, startScenarioServer } from '../../../helpers/scenario-server.js';
import { startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';

const KEY = 'service_pk_allProgressKEY_0123456789';
const scenario = scenarioCli({ name: 'all-progress', key: KEY, env: { NO_COLOR: '1' } });

describe('recordings list --all --max-items', () => {
  it('says how to go on with the cursor, not "or --all for every page"', async () => {
    scenario.server.queue({ body: page([recording(1), recording(2)], 'NEXT', 2) });
    const { t, run } = scenario.cli(['recordings', 'list', '--all', '--limit', '2', '--max-items', '2', '-o', 'json']);
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toHaveLength(2);
    expect(t.stderr()).not.toContain('--all');
    expect(t.stderr()).toMatch(/^more results \(stopped at --max-items 2\): go on from there with --cursor \S+\n$/);
  });
});

let home: string;
let term: Terminal;
let server: ScenarioServer;

describe.skipIf(!TMUX.met)(needs(TMUX, 'recordings list --all -o json > file on a terminal'), () => {
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-allprogress-'));
    server = await startScenarioServer();
    term = await startTerminal(terminalEnv(home, { RFS_API_KEY: KEY, RFS_BASE_URL: server.url }));
  });
  afterAll(async () => {
    await term?.stop();
    await server?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('shows how far it has come on stderr while stdout goes to a file', async () => {
    const items = (from: number) => Array.from({ length: 100 }, (_, i) => recording(from + i));
    // The second page comes late: the screen must say what rfs is doing meanwhile.
    server.queue({ body: page(items(1), 'P2', 100) }, { body: page(items(101), null, 100), delayMs: 3000 });
    const out = join(home, 'big.json');
    await term.run('all', ['recordings', 'list', '--all', '--rate', '0', '-o', 'json'], { columns: 80, rows: 10 }, { stdoutTo: out });
    const seen = await term.waitFor('all', (s) => s.includes('100 so far, fetching more…') || /\[exit \d+\]/.test(s), 'the progress');
    expect(seen).toContain('100 so far, fetching more…');
    expect(await term.exitStatus('all')).toBe(0);
    // The spinner has cleared itself; the list is whole in the file.
    expect(await term.screen('all')).toMatch(/^\[exit 0\]/);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(200);
    server.verify();
  });
});
