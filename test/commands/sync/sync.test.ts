// rfs sync through the whole CLI against the in-process sandbox, with a small script as the
// "external system": every recording filed once with the command's externalId; failures
// reported with the command's stderr; the journal's answers filed without running it again.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO, type BufferIOOptions } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, counts, externalRecords, FIXTURE_ENV, journalSteps } from './helpers.js';

let h: Harness;
let dir: string;
let external: string;
let journal: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 8 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-sync-'));
  external = join(dir, 'external.jsonl');
  journal = join(dir, 'journal.jsonl');
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function sync(extra: string[] = [], o: BufferIOOptions = {}) {
  const t = bufferIO({
    ...o,
    env: {
      RFS_CONFIG_DIR: join(dir, 'config'),
      RFS_API_KEY: h.keys.admin,
      RFS_BASE_URL: h.base,
      EXTERNAL_FILE: external,
      PATH: process.env.PATH,
      RFS_EXEC_ENV: FIXTURE_ENV,
      ...o.env,
    },
  });
  const argv = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', journal, '-o', 'ndjson', ...extra];
  return { t, run: (signal?: AbortSignal, clock: Clock = fakeTime().clock) => runCli(argv, t.io, { signal, clock }) };
}

async function unsynced(): Promise<string[]> {
  const res = await h.api('/recordings?limit=100');
  return (res.json.data as { id: string }[]).map((r) => r.id);
}

async function filing(id: string): Promise<{ syncCount: number }> {
  const res = await h.api(`/recordings/${id}`);
  return { syncCount: (res.json.data as { syncCount: number }).syncCount };
}

describe('rfs sync', () => {
  it('files every COMPLETED unsynced recording once, with the externalId its command printed', async () => {
    const before = await unsynced();
    expect(before.length).toBeGreaterThan(2);
    const { t, run } = sync();
    expect(await run()).toBe(0);
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const records = externalRecords(external);
    expect(records.map((r) => r.recordingId).sort()).toEqual([...before].sort());
    for (const r of results) {
      expect(r).toMatchObject({ ok: true, replayed: false, syncCount: 1, attempt: 1, from: 'command' });
      expect(r.externalId).toBe(records.find((x) => x.recordingId === r.id)?.externalId);
    }
    expect(await unsynced()).toEqual([]);
    for (const id of before) expect((await filing(id)).syncCount).toBe(1);
    expect(t.stderr()).toMatch(new RegExp(`pass done: ${before.length} filed, 0 failed`));
    // A second run finds nothing to do and runs nothing.
    const again = sync();
    expect(await again.run()).toBe(0);
    expect(again.t.stdout()).toBe('');
    expect(externalRecords(external)).toHaveLength(before.length);
  });

  it('with --watch, waits --interval on the clock between passes and files what completed meanwhile', async () => {
    const before = await unsynced();
    const time = fakeTime();
    const controller = new AbortController();
    let intervals = 0;
    let added = '';
    // The run's clock: the first --interval wait sees a recording complete, the second is Ctrl-C.
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 7_000 && ++intervals === 1) {
          added = (await h.control('/recordings', { title: 'Completed between passes' })).json.data.id as string;
          await h.control(`/recordings/${added}/status`, { status: 'COMPLETED' });
        } else if (ms === 7_000) controller.abort();
        return time.clock.sleep(ms, signal);
      },
    };
    const { t, run } = sync(['--watch', '--interval', '7']);
    expect(await run(controller.signal, clock)).toBe(0);
    expect(intervals).toBe(2);
    const filed = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id as string);
    expect(filed.sort()).toEqual([...before, added].sort());
    expect(t.stderr().match(/pass done/g)).toHaveLength(2);
    expect(await unsynced()).toEqual([]);
  });

  it('reports a failing command with its stderr, exits 8, and runs it again with RFS_ATTEMPT=2 next time', async () => {
    const [victim, ...rest] = await unsynced();
    const first = sync([], { env: { FAIL_FOR: victim! } });
    expect(await first.run()).toBe(8);
    const results = first.t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const failed = results.find((r) => r.id === victim);
    expect(failed).toMatchObject({ ok: false, stage: 'command', attempt: 1, error: { code: 'COMMAND_FAILED' } });
    expect(failed.error.title).toBe(`the command exited 4: the CRM refused ${victim}: matter is closed`);
    expect(
      results
        .filter((r) => r.ok)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...rest].sort());

    const second = sync();
    expect(await second.run()).toBe(0);
    expect(JSON.parse(second.t.stdout())).toMatchObject({ id: victim, ok: true, attempt: 2 });
    expect(counts(externalRecords(external).map((r) => r.recordingId)).get(victim!)).toBe(1);
  });

  it('takes a bare externalId line as the record', async () => {
    const ids = await unsynced();
    const { t, run } = sync(['--max-items', '1'], { env: { PRINT: 'bare' } });
    expect(await run()).toBe(0);
    const result = JSON.parse(t.stdout());
    expect(result.id).toBe(ids[0]);
    expect(result.externalId).toBe(externalRecords(external)[0]?.externalId);
  });

  it('stops a command that outlives --exec-timeout and reports it', async () => {
    const started = Date.now();
    const { t, run } = sync(['--max-items', '1', '--exec-timeout', '1'], { env: { SLOW_MS: '20000' } });
    expect(await run()).toBe(8);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(JSON.parse(t.stdout())).toMatchObject({ ok: false, stage: 'command', error: { code: 'COMMAND_TIMEOUT' } });
  });

  it('reports a command that prints no record', async () => {
    const { t, run } = sync(['--max-items', '1'], { env: { PRINT: 'bare', EXTERNAL_FILE: join(dir, 'no-such-dir', 'x') } });
    expect(await run()).toBe(8);
    expect(JSON.parse(t.stdout())).toMatchObject({ ok: false, stage: 'command', error: { code: 'COMMAND_FAILED' } });
  });

  it('lists what would be sent with --dry-run, and runs, files and journals nothing', async () => {
    const ids = await unsynced();
    const { t, run } = sync(['--dry-run', '-o', 'json']);
    expect(await run()).toBe(0);
    const rows = JSON.parse(t.stdout()) as { id: string; action: string; attempt: number }[];
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.every((r) => r.action === 'run command' && r.attempt === 1)).toBe(true);
    expect(externalRecords(external)).toEqual([]);
    expect(journalSteps(journal)).toEqual([]);
    expect(await unsynced()).toEqual(ids);
  });

  it('files an answer found in the journal without running the command again', async () => {
    const [id] = await unsynced();
    writeFileSync(
      journal,
      `${JSON.stringify({ step: 'started', id, attempt: 1, at: '2026-11-22T10:00:00Z' })}\n${JSON.stringify({ step: 'result', id, attempt: 1, at: '2026-11-22T10:00:01Z', externalId: 'FROM-JOURNAL-1' })}\n`,
    );
    const { t, run } = sync(['--max-items', '1']);
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toMatchObject({ id, ok: true, externalId: 'FROM-JOURNAL-1', from: 'journal' });
    expect(externalRecords(external)).toEqual([]);
    const synced = await h.api('/recordings?syncState=synced&limit=100');
    expect((synced.json.data as { id: string }[]).map((r) => r.id)).toContain(id);
  });

  it('reports a damaged last journal line and goes on', async () => {
    const [id] = await unsynced();
    writeFileSync(
      journal,
      `${JSON.stringify({ step: 'started', id, attempt: 1, at: '2026-11-22T10:00:00Z' })}\n{"step":"result","id":"${id}","att`,
    );
    const { t, run } = sync(['--max-items', '1']);
    expect(await run()).toBe(0);
    expect(t.stderr()).toMatch(/journal .*line 2: the last line is incomplete/);
    expect(JSON.parse(t.stdout())).toMatchObject({ id, ok: true, attempt: 2 });
    // The damaged line is gone: the journal was rewritten with what was pending.
    expect(readFileSync(journal, 'utf8')).not.toContain('"att\n');
  });

  it('refuses a journal that another live rfs sync holds', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(`${journal}.lock`, `${holder.pid}\n`);
      const { t, run } = sync();
      expect(await run()).toBe(2);
      expect(t.stderr()).toMatch(new RegExp(`another rfs sync \\(pid ${holder.pid}\\)`));
      expect(externalRecords(external)).toEqual([]);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over the lock of a sync that died', async () => {
    writeFileSync(`${journal}.lock`, '999999\n');
    const { run } = sync(['--max-items', '1']);
    expect(await run()).toBe(0);
    expect(externalRecords(external)).toHaveLength(1);
  });

  it("takes --provider from the profile's provider setting when the flag is absent, and the flag over it", async () => {
    const env = { RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base, RFS_CONFIG_DIR: join(dir, 'config'), PATH: process.env.PATH };
    const run = async (argv: string[]) => {
      const t = bufferIO({ env });
      expect(await runCli(argv, t.io, { clock: fakeTime().clock }), t.stderr()).toBe(0);
      return t;
    };
    await run(['config', 'set', 'provider', 'crm']);
    // A shell command, no node process: it reads the detail and prints a bare externalId.
    const exec = 'cat >/dev/null; echo "EXT-$RFS_RECORDING_ID"';
    const [first, second] = await unsynced();
    const filed = async (flag: string[]) => {
      const t = await run(['sync', '--exec', exec, ...flag, '--journal', journal, '--max-items', '1', '-o', 'ndjson']);
      return (JSON.parse(t.stdout()) as { id: string }).id;
    };
    // Filing is idempotent on (provider, externalId) (api.md): the same pair again is a replay,
    // so a replay proves which provider sync sent.
    const replayed = async (id: string, provider: string) => {
      const res = await h.api(`/recordings/${id}/filings`, { method: 'POST', body: { provider, externalId: `EXT-${id}` } });
      return (res.json as { meta: { replayed: boolean } }).meta.replayed;
    };
    expect(await filed([])).toBe(first);
    expect(await replayed(first as string, 'crm')).toBe(true);
    expect(await filed(['--provider', 'erp'])).toBe(second);
    expect(await replayed(second as string, 'erp')).toBe(true);
  });

  it('needs --exec and --provider', async () => {
    const t = bufferIO({ env: { RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base, RFS_CONFIG_DIR: join(dir, 'config') } });
    expect(await runCli(['sync', '--provider', 'crm'], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/--exec/);
  });
});
