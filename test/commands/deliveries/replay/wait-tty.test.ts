// `deliveries replay --all-failed --since 30m --error … --yes --wait` in a real terminal at 80
// columns (tmux, the built CLI) during `rfs sandbox --scenario incident`: first the 500s while the
// failing receiver still fails (a 5 s --wait-timeout: "not known", exit 8), then the 503s after
// `POST /_sandbox/receivers/failing {"mode":"ok"}` (every replayed delivery SUCCEEDED, exit 0).
// The screen must hold: no line wider than the terminal (capture-pane -J shows a line the
// terminal wrapped as the one line it is), and the summaries wrapped at words by rfs, each
// phrase whole once the lines are joined (`(50 rows, the most the API lists)`, `(--wait-timeout)`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../../src/output/table.js';
import { type RunningSandbox, startSandbox } from '../../../../src/sandbox/index.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';
import { until } from '../incident-support.js';

const COLUMNS = 80;

describe.skipIf(!TMUX.met)(needs(TMUX, 'replay --wait against --scenario incident, in a terminal'), () => {
  let sandbox: RunningSandbox;
  let term: Terminal;
  let home: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 42, scenario: 'incident', rateLimit: 0 });
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-replay-wait-'));
    term = await startTerminal(terminalEnv(home, { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl }));
  }, 60_000);
  afterAll(async () => {
    await term?.stop();
    await sandbox?.close();
    if (home) rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  /** Runs the replay in a pane of 80 columns; answers rfs's lines and its exit status. */
  async function replay(name: string, error: string, extra: string[]): Promise<{ lines: string[]; screen: string; code: number }> {
    const args = ['--rate', '0', 'deliveries', 'replay', '--all-failed', '--since', '30m', '--error', error, '--yes', '--wait', ...extra];
    await term.run(name, args, { columns: COLUMNS, rows: 60 });
    await until(`${name} to end`, async () => /^\[exit \d+\]$/m.test(await term.screen(name)), 120_000);
    const screen = await term.screen(name);
    return { lines: rfsLines(screen), screen, code: await term.exitStatus(name) };
  }

  function expectWithin(screen: string, lines: string[]): void {
    const wide = lines.filter((l) => displayWidth(l) > COLUMNS);
    expect(wide, `lines wider than ${COLUMNS} cells in:\n${screen}`).toEqual([]);
  }

  it('while the receiver fails: "not known" at the timeout, exit 8, every summary wrapped at words', async () => {
    const { lines, screen, code } = await replay('failing', '500', ['--wait-timeout', '5']);
    expect(code, screen).toBe(8);
    expectWithin(screen, lines);
    const said = lines.join(' ');
    expect(said, screen).toMatch(/\d+ replayed, 0 failed; \d+ rounds?;/);
    expect(said, screen).toContain('(50 rows, the most the API lists)');
    expect(said, screen).toMatch(/waited \d+ s: 0 SUCCEEDED, 0 FAILED again; \d+ not known after 5 s \(--wait-timeout\): dlv_/);
    // Every id whole: the service's are dlv_ and 20 characters.
    for (const id of said.match(/\bdlv_\w*/g) ?? []) expect(id).toMatch(/^dlv_\w{20}$/);
  }, 180_000);

  it('after recovery: every replayed delivery SUCCEEDED, exit 0, within the width', async () => {
    await sandbox.control.setReceiver('failing', 'ok');
    const { lines, screen, code } = await replay('recovered', '503', []);
    expect(code, screen).toBe(0);
    expectWithin(screen, lines);
    const said = lines.join(' ');
    const replayed = /(\d+) replayed, 0 failed/.exec(said);
    expect(replayed, screen).not.toBeNull();
    expect(said, screen).toMatch(new RegExp(`waited \\d+ s: ${replayed?.[1]} SUCCEEDED, 0 FAILED again`));
    expect(said).not.toContain('not known');
  }, 180_000);
});
