// Notices, sync status and --jq in a real terminal (tmux), against the quick start's sandbox
// (`--seed 42`), each screen compared exactly with test/tty/__screens__/ (RFS_TTY_RECORD=1
// writes them anew; read the diff first):
// - 3: `sync status` at 60, 80 and 120 columns: NEXT TRY as `in 1m`, so the command's message
//   keeps its room at 80;
// - 4: a long notice wraps at words at 60 and 80 columns, a cursor kept whole on its own line;
// - 7: with --jq, the "more results" notice is the last thing on the screen.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { bufferIO } from '../helpers/io.js';
import { needs, TMUX } from '../helpers/platform.js';
import { startTerminal, type Terminal, terminalEnv } from '../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('./__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';

let sandbox: RunningSandbox;
let home: string;
let term: Terminal;
let journal: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 42 });
  home = mkdtempSync(join(tmpdir(), 'rfs-issue33-'));
  journal = join(home, 'sync.jsonl');
  term = await startTerminal(terminalEnv(home, { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl }));
  // Two recordings whose command failed just now: `failing`, tried again in a minute.
  const t = bufferIO({ env: { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
  const exec = 'echo "the CRM answered 503 Service Unavailable; try again later" >&2; exit 1';
  const code = await runCli(['sync', '--exec', exec, '--provider', 'crm', '--journal', journal, '--max-items', '2', '-q'], t.io);
  expect(code, t.stderr()).toBe(8);
});
afterAll(async () => {
  await term?.stop();
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The screen, compared exactly with the recorded one (the sandbox's port made neutral). */
function expectScreen(file: string, screen: string): void {
  const shown = screen.replaceAll(new URL(sandbox.baseUrl).port, 'PORT');
  const path = join(SCREENS, file);
  if (RECORD || !existsSync(path)) {
    mkdirSync(SCREENS, { recursive: true });
    writeFileSync(path, `${shown}\n`);
  }
  expect(shown).toBe(readFileSync(path, 'utf8').replace(/\n$/, ''));
}

/** What rfs left on the screen, up to the shell's `[exit N]` line. */
async function shown(name: string, args: string[], columns: number): Promise<string> {
  await term.run(name, args, { columns, rows: 40 });
  const screen = await term.waitFor(name, (s) => /^\[exit \d+\]$/m.test(s), `${name} to end`);
  const lines = screen.split('\n');
  return lines
    .slice(
      0,
      lines.findIndex((l) => /^\[exit \d+\]$/.test(l)),
    )
    .join('\n');
}

describe(needs(TMUX, 'notices and screens in a terminal'), () => {
  for (const columns of [60, 80, 120]) {
    it(`sync status at ${columns} columns: NEXT TRY reads "in 1m" (at 60 it goes, after FAILURES) and the error is whole`, async () => {
      // -q: the table alone (the journal's notice names a temporary path, whose length varies).
      const screen = await shown(`status-${columns}`, ['sync', 'status', '--journal', journal, '-q'], columns);
      if (columns >= 80) expect(screen).toMatch(/failing\s+1\s+in 1m\s/);
      else expect(screen.split('\n')[0]).toMatch(/^ID\s+STATE\s+LAST ERROR$/);
      expect(screen).not.toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      // Wrapped under its column, never cut: the whole message is there, at every width.
      expect(screen.replace(/\s+/g, ' '), screen).toContain(
        'the command exited 1: the CRM answered 503 Service Unavailable; try again later',
      );
      expect(screen).not.toContain('…');
      expectScreen(`sync-status-${columns}.txt`, screen);
    });
  }

  for (const columns of [60, 80]) {
    it(`a notice longer than ${columns} columns wraps at words; the cursor stays whole on a line of its own`, async () => {
      const screen = await shown(`notice-${columns}`, ['recordings', 'list', '--limit', '2'], columns);
      const lines = screen.split('\n');
      const start = lines.findIndex((l) => l.startsWith('more results'));
      expect(start).toBeGreaterThan(0);
      const notice = lines.slice(start);
      expect(notice.length).toBeGreaterThan(1);
      // No word cut: every line ends at a word's end, and the cursor is one line, whole.
      const cursor = notice.find((l) => /^[A-Za-z0-9_-]{40,}$/.test(l));
      expect(cursor, notice.join('\n')).toBeDefined();
      expect(notice.join(' ')).toMatch(/^more results: every page with --all, the next with --cursor [A-Za-z0-9_-]{40,}$/);
      // The sentence on one line, the cursor alone on the next: nothing of the sentence after it
      // (README, first example), so the notice never reads as if it were broken.
      expect(notice).toHaveLength(2);
      expect(notice[1]).toBe(cursor);
      for (const l of notice) if (l !== cursor) expect(l.length).toBeLessThanOrEqual(columns);
    });
  }

  it('with --jq, the "more results" notice comes after the last result', async () => {
    const screen = await shown('jq-notice', ['recordings', 'list', '--limit', '3', '--jq', '.id'], 120);
    const lines = screen.split('\n').filter((l) => l !== '');
    expect(
      lines.slice(0, 3).every((l) => /^rec_/.test(l)),
      screen,
    ).toBe(true);
    // The notice (wrapped at words) is all that follows the results.
    expect(lines[3], screen).toMatch(/^more results: every page with --all, the next with --cursor/);
    expect(lines.slice(3).join(' ')).toMatch(/^more results: every page with --all, the next with --cursor \S+$/);
  });
});
