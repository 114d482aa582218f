// One command answer that rfs cannot journal or send (metadata nested 6,000 levels deep) must
// fail that recording only: the others are filed, exit 8, and the next run does not crash on
// it (it used to crash in the journal write, every run, before any other recording).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replayJournal } from '../../../src/sync/journal.js';
import { runRfs } from '../../helpers/child.js';
import { start, type Harness } from '../../sandbox/helpers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/deep-answer.mjs', import.meta.url));

let h: Harness;
let dir: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 6 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-deep-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function unsynced(): Promise<string[]> {
  const res = await h.api('/recordings?limit=100');
  return (res.json.data as { id: string }[]).map((r) => r.id);
}

function sync(bad: string) {
  return runRfs(
    ['sync', '--exec', `"${process.execPath}" "${FIXTURE}"`, '--provider', 'crm', '--journal', join(dir, 'journal.jsonl'), '-o', 'ndjson'],
    {
      env: {
        RFS_CONFIG_DIR: join(dir, 'config'),
        RFS_API_KEY: h.keys.admin,
        RFS_BASE_URL: h.base,
        BAD_ID: bad,
        RFS_EXEC_ENV: 'BAD_ID DEPTH',
      },
      timeoutMs: 30_000,
    },
  );
}

const lines = (stdout: string): { id: string; ok: boolean; attempt?: number; error?: { code: string; title: string } }[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('rfs sync, an answer nested too deep', () => {
  it('fails that recording only, files the others, exits 8, and the next run does not crash', async () => {
    const ids = await unsynced();
    expect(ids.length).toBeGreaterThan(2);
    const bad = ids[1]!;

    const first = await sync(bad);
    expect(first.stderr).not.toMatch(/INTERNAL_BUG|unexpected failure/);
    expect(first.code).toBe(8);
    const results = lines(first.stdout);
    expect(results.map((r) => r.id).sort()).toEqual([...ids].sort());
    const failed = results.find((r) => r.id === bad);
    expect(failed).toMatchObject({ ok: false, stage: 'command', attempt: 1, error: { code: 'COMMAND_OUTPUT' } });
    expect(failed?.error?.title).toMatch(/nested more than 256 levels/);
    expect(
      results
        .filter((r) => r.ok)
        .map((r) => r.id)
        .sort(),
    ).toEqual(ids.filter((id) => id !== bad).sort());
    expect(await unsynced()).toEqual([bad]);

    // The next run handles it as any failed command: run again, reported, no crash.
    const second = await sync(bad);
    expect(second.stderr).not.toMatch(/INTERNAL_BUG|unexpected failure/);
    expect(second.code).toBe(8);
    expect(lines(second.stdout)).toEqual([
      expect.objectContaining({ id: bad, ok: false, attempt: 2, error: expect.objectContaining({ code: 'COMMAND_OUTPUT' }) }),
    ]);

    // Once the command answers something rfs can send, the recording is filed.
    const third = await sync('none');
    expect(third.code).toBe(0);
    expect(lines(third.stdout)).toEqual([expect.objectContaining({ id: bad, ok: true, attempt: 3 })]);
    expect(await unsynced()).toEqual([]);
  }, 90_000);
});

describe('the journal replay', () => {
  it('skips, with a problem, a result line whose metadata is nested too deep, so the command runs again', () => {
    const deep = `${'{"a":'.repeat(300)}1${'}'.repeat(300)}`;
    const text = [
      JSON.stringify({ step: 'started', id: 'rec_1', attempt: 1, at: '2026-11-22T10:00:00Z' }),
      `{"step":"result","id":"rec_1","attempt":1,"at":"2026-11-22T10:00:01Z","externalId":"X","metadata":${deep}}`,
      '',
    ].join('\n');
    const { states, problems } = replayJournal(text);
    expect(problems).toEqual([{ line: 2, message: expect.stringMatching(/nested more than 253 levels deep; skipped/) }]);
    expect(states.get('rec_1')).toEqual({ attempts: 1 });
  });
});
