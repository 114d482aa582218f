// Retries on a terminal: a list whose service answers 503 twice, each with a
// 3 s Retry-After (a wait long enough for a countdown spinner, cli.md, Retries), then the page.
// Each countdown used to be its own ora, and the second started before the first was gone:
// "[ora] Multiple concurrent spinners detected…" stayed on the screen, glued to the spinner's
// line. The screen after the run is compared exactly at 80 and 120 columns: the table and
// nothing else (the one spinner has cleared itself).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { page, problem, recording } from '../helpers/fixtures.js';
import { needs, TMUX } from '../helpers/platform.js';
import { scenarioTerminal } from '../helpers/scenario-terminal.js';
import { rfsLines, type Terminal } from '../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('./__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const KEY = 'service_pk_ttyRetryKEY_0123456789';
const OLD = '2025-06-28T10:00:00.000Z';

/** The screen once rfs has exited; the waits are 6 s of real time, so up to 30 s. */
async function finished(term: Terminal, name: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await term.screen(name);
    if (/\[exit \d+\]/.test(s)) return s;
    if (Date.now() > deadline) throw new Error(`rfs did not exit; the screen was:\n${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'retries on a terminal'), () => {
  const t = scenarioTerminal('rfs-tty-retry-', KEY);

  for (const columns of [80, 120]) {
    it(`at ${columns} columns: one countdown at a time, then the table alone`, async () => {
      const failure = problem(503, 'SERVICE_UNAVAILABLE', 'busy');
      const busy = { ...failure, headers: { ...failure.headers, 'retry-after': '3' } };
      t.server.queue(busy, busy, { body: page([recording(1, { updatedAt: OLD }), recording(2, { updatedAt: OLD })], null) });
      const name = `retry-${columns}`;
      await t.term.run(name, ['recordings', 'list'], { columns, rows: 20 });
      // The countdown is there while rfs waits: one line.
      const waiting = await t.term.waitFor(name, (s) => s.includes('retrying in'), 'the countdown');
      expect(waiting.split('\n').filter((l) => l.includes('retrying in'))).toHaveLength(1);
      const screen = rfsLines(await finished(t.term, name)).join('\n');
      const file = join(SCREENS, `retry-spinner-${columns}.txt`);
      if (RECORD) writeFileSync(file, `${screen}\n`);
      expect(screen).toBe(readFileSync(file, 'utf8').trimEnd());
      expect(screen).not.toContain('[ora]');
    });
  }
});
