// The journal's `dropped` step (sync/pass.ts): an answer the journal holds for
// a recording the service no longer has (404 on its filing) is dropped from the journal, so the
// next pass does not try to file it again. Without the step it failed on every pass, forever.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, journalSteps, syncEnv } from './helpers.js';

const GONE = 'rec_GoneForGood0000001';

let h: Harness;
let dir: string;
beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 2 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-dropped-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sync(journal: string) {
  const t = bufferIO({ env: syncEnv(h, dir) });
  const argv = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', journal, '-o', 'ndjson', '--rate', '0'];
  const code = await runCli(argv, t.io, { clock: fakeTime().clock });
  const lines = t
    .stdout()
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; ok: boolean; from?: string; stage?: string; error?: { status: number | null } });
  return { code, lines };
}

describe('rfs sync, an answer in the journal for a recording the service no longer has', () => {
  it('fails its filing once (404), journals it as dropped, and the next run does not try it again', async () => {
    const journal = join(dir, 'journal.jsonl');
    // A run that crashed after the command answered; the recording was deleted since.
    const at = '2026-11-22T10:00:00.000Z';
    writeFileSync(
      journal,
      [
        JSON.stringify({ step: 'started', id: GONE, attempt: 1, at }),
        JSON.stringify({ step: 'result', id: GONE, attempt: 1, at, externalId: 'CRM-GONE' }),
        '',
      ].join('\n'),
    );

    const first = await sync(journal);
    expect(first.code).toBe(8);
    expect(first.lines.find((l) => l.id === GONE)).toMatchObject({ ok: false, from: 'journal', stage: 'filing', error: { status: 404 } });
    expect(first.lines.filter((l) => l.id !== GONE).every((l) => l.ok)).toBe(true);
    expect(
      journalSteps(journal)
        .filter((s) => s.id === GONE)
        .map((s) => s.step),
    ).toEqual(['started', 'result', 'dropped']);

    const second = await sync(journal);
    expect(second).toEqual({ code: 0, lines: [] });
  }, 30_000);
});
