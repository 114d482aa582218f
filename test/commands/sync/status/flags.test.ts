// `rfs sync status` takes only its own flags: commander parses the flags of
// `sync` on either side of the subcommand, and `sync status --concurrency 99 --watch` exited 0.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { bufferIO } from '../../../helpers/io.js';

let dir: string;
let journal: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-status-flags-'));
  journal = join(dir, 'j.jsonl');
  writeFileSync(journal, `${JSON.stringify({ step: 'started', id: 'rec_1', attempt: 1, at: '2026-11-22T10:00:00Z' })}\n`);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: join(dir, 'config'), XDG_STATE_HOME: join(dir, 'state') } });
  const code = await runCli(argv, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('rfs sync status', () => {
  it.each([
    [['sync', 'status', '--journal', 'J', '--concurrency', '99'], '--concurrency'],
    [['sync', 'status', '--journal', 'J', '--watch'], '--watch'],
    [['sync', '--exec', 'true', 'status', '--journal', 'J'], '--exec'],
    [['sync', 'status', '--journal', 'J', '--watch', '--metrics', '9464'], '--watch, --metrics'],
  ])('%j: exit 2, naming the flag of rfs sync', async (argv, named) => {
    const r = await cli(argv.map((a) => (a === 'J' ? journal : a)));
    expect(r.stderr).toContain(
      `error: rfs sync status takes only --journal (and the global flags), not ${named}: that is a flag of rfs sync`,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it.each([[['sync', 'status', '--journal', 'J', '-o', 'json']], [['sync', '--journal', 'J', 'status', '-o', 'json']]])(
    '%j: reads the journal, exit 0',
    async (argv) => {
      const r = await cli(argv.map((a) => (a === 'J' ? journal : a)));
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject([{ id: 'rec_1', state: 'pending' }]);
    },
  );

  it('refuses --log-format, a flag of rfs sync, with one JSON error line since it asked for JSON', async () => {
    const r = await cli(['sync', 'status', '--journal', journal, '--log-format', 'json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ level: 'error', event: 'error', exitCode: 2, error: { code: 'USAGE' } });
  });
});
