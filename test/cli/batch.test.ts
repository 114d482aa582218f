// Batches against the real sandbox: file --from with damaged and duplicate lines, replay of
// really FAILED deliveries, and Ctrl-C in the middle of each, where the summary must say what
// was done and what was not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { eventually, start, startReceiver, type Harness } from '../sandbox/helpers.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO, type BufferIOOptions } from '../helpers/io.js';
import { startScenarioServer } from '../helpers/scenario-server.js';

let h: Harness;
let configDir: string;

beforeAll(async () => {
  h = await start({ rateLimit: 0, deliveryAttempts: 2, deliveryBackoffMs: 20 });
  configDir = mkdtempSync(join(tmpdir(), 'rfs-batch-'));
});
afterAll(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

function cli(argv: string[], o: BufferIOOptions = {}, base = h.base, key = h.keys.admin) {
  const t = bufferIO({ ...o, env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: key, RFS_BASE_URL: base, ...o.env } });
  return { t, run: (signal?: AbortSignal) => runCli(argv, t.io, { signal, clock: fakeTime().clock }) };
}

async function unsyncedIds(n: number): Promise<string[]> {
  const res = await h.api(`/recordings?limit=${n}`);
  return (res.json.data as { id: string }[]).map((r) => r.id);
}

describe('file --from', () => {
  it('reports every line, skips damaged ones, files the rest, and exits 8', async () => {
    const [a, b] = await unsyncedIds(2);
    const pending = await h.control('/recordings', { title: 'not done yet' });
    const notCompleted = pending.json.data.id as string;
    const lines = Buffer.concat([
      Buffer.from(`\uFEFF{"id":"${a}","externalId":"EXT-A"}\r\n`),
      Buffer.from('\n'),
      Buffer.from('{not json}\n'),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
      Buffer.from(`{"recordingId":"${b}","externalId":"EXT-B","provider":"case-tool","metadata":{"folder":"2026"}}\n`),
      Buffer.from(`{"id":"${a}","externalId":"EXT-A"}\n`),
      Buffer.from(`{"id":"${notCompleted}","externalId":"EXT-C"}\n`),
      Buffer.from('{"externalId":"no id"}\n'),
      Buffer.from('[1,2]'),
    ]);
    const { t, run } = cli(['file', '--from', '-', '--provider', 'crm', '-o', 'ndjson'], { stdin: lines.toString('latin1') });
    // bufferIO takes text: hand the raw bytes over instead so invalid UTF-8 stays invalid.
    t.io.stdin = (await import('node:stream')).Readable.from([lines]);
    expect(await run()).toBe(8);
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((r) => [r.line, r.ok, r.error?.code ?? null])).toEqual([
      [1, true, null],
      [3, false, 'INVALID_LINE'],
      [4, false, 'INVALID_LINE'],
      [5, true, null],
      [6, true, null],
      [7, false, 'RECORDING_NOT_COMPLETED'],
      [8, false, 'INVALID_LINE'],
      [9, false, 'INVALID_LINE'],
    ]);
    expect(results[4]).toMatchObject({ id: a, replayed: true, syncCount: 1, duplicateOf: 1 });
    expect(results[2].error.title).toMatch(/UTF-8/);
    expect(t.stderr()).toMatch(/2 filed, 1 already filed, 5 failed, 1 blank line skipped/);
    const filedB = await h.api(`/recordings/${b}`);
    expect(filedB.json.data).toMatchObject({ syncCount: 1 });
  });

  it('reads a batch from a file and prints rows on a terminal', async () => {
    const [c] = await unsyncedIds(1);
    const { writeFileSync } = await import('node:fs');
    const file = join(configDir, 'batch.ndjson');
    writeFileSync(file, `{"id":"${c}","externalId":"EXT-FILE"}\n`);
    const { t, run } = cli(['file', '--from', file, '--provider', 'crm'], { stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    expect(await run()).toBe(0);
    // a header and aligned columns, as a table.
    expect(t.stdout()).toBe(`RESULT  LINE  ${'ID'.padEnd(c!.length)}  DETAIL\nok      1     ${c}  filed (syncCount 1)\n`);
  });

  it('exits 2 for a --from file that does not exist, sending nothing', async () => {
    const { t, run } = cli(['file', '--from', join(configDir, 'missing.ndjson')]);
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/cannot read/);
  });

  it('on Ctrl-C keeps what was printed and says which lines were not processed', async () => {
    const server = await startScenarioServer();
    try {
      const filing = (id: string) => ({
        body: {
          data: {
            id,
            lastSyncedAt: '2026-11-22T10:00:00Z',
            syncCount: 1,
            syncMetadata: { provider: 'crm', externalId: 'X', filedAt: '2026-11-22T10:00:00Z' },
          },
          meta: { replayed: false },
        },
      });
      server.queue(filing('rec_1'), { ...filing('rec_2'), delayMs: 5000 });
      const input = ['rec_1', 'rec_2', 'rec_3'].map((id) => `{"id":"${id}","externalId":"X"}`).join('\n');
      const controller = new AbortController();
      const { t, run } = cli(
        ['file', '--from', '-', '--provider', 'crm', '-o', 'ndjson'],
        { stdin: input },
        server.url,
        'service_pk_ctrlc0000',
      );
      const running = run(controller.signal);
      await eventually(async () => (server.requests.length === 2 ? true : undefined));
      controller.abort();
      expect(await running).toBe(130);
      expect(
        t
          .stdout()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([{ line: 1, id: 'rec_1', ok: true, replayed: false, syncCount: 1 }]);
      expect(t.stderr()).toMatch(/1 filed, 0 failed; interrupted while filing line 2 .*lines after 2 were not processed/);
    } finally {
      await server.close();
    }
  });
});

describe('deliveries replay', () => {
  it('replays every FAILED delivery with --all-failed --yes, and the receiver gets the same delivery id', async () => {
    const receiver = await startReceiver();
    try {
      receiver.respond(500);
      const created = await h.api('/webhooks', {
        method: 'POST',
        body: { url: receiver.url, events: ['recording.completed'] },
        headers: { 'idempotency-key': 'batch-test-1' },
      });
      expect(created.status).toBe(201);
      const rec = await h.control('/recordings', { title: 'for replay' });
      await h.control(`/recordings/${rec.json.data.id}/status`, { status: 'COMPLETED' });
      const failed = await eventually(async () => {
        const res = await h.api('/webhooks/deliveries?status=FAILED');
        return res.json.data.length > 0 ? (res.json.data as { id: string }[]) : undefined;
      });

      const dry = cli(['deliveries', 'replay', '--all-failed', '--dry-run', '-o', 'json']);
      expect(await dry.run()).toBe(0);
      expect((JSON.parse(dry.t.stdout()) as { id: string }[]).map((d) => d.id)).toEqual(failed.map((d) => d.id));

      receiver.respond(200);
      const before = receiver.received.length;
      const { t, run } = cli(['deliveries', 'replay', '--all-failed', '--yes', '-o', 'ndjson']);
      expect(await run()).toBe(0);
      const results = t
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(results).toEqual(failed.map((d) => ({ id: d.id, ok: true, status: 'PENDING' })));
      expect(t.stderr()).toMatch(new RegExp(`${failed.length} replayed, 0 failed`));
      const got = await receiver.waitFor(before + 1);
      expect(got.at(-1)?.headers['x-service-delivery']).toBe(failed[0]?.id);
    } finally {
      await receiver.close();
    }
  });

  it('reports an unknown delivery id as a failed item and exits 8', async () => {
    const { t, run } = cli(['deliveries', 'replay', 'dlv_doesnotexist', '-o', 'ndjson']);
    expect(await run()).toBe(8);
    expect(JSON.parse(t.stdout())).toMatchObject({ id: 'dlv_doesnotexist', ok: false, error: { status: 404, code: 'RESOURCE_NOT_FOUND' } });
    expect(t.stderr()).toMatch(/0 replayed, 1 failed/);
  });

  it('on Ctrl-C says which deliveries were not replayed', async () => {
    const server = await startScenarioServer();
    try {
      server.queue(
        { status: 202, body: { data: { id: 'dlv_1', status: 'PENDING' } } },
        { status: 202, delayMs: 5000, body: { data: { id: 'dlv_2', status: 'PENDING' } } },
      );
      const controller = new AbortController();
      const { t, run } = cli(['deliveries', 'replay', 'dlv_1', 'dlv_2', 'dlv_3', '-o', 'ndjson'], {}, server.url, 'service_pk_ctrlc0000');
      const running = run(controller.signal);
      await eventually(async () => (server.requests.length === 2 ? true : undefined));
      controller.abort();
      expect(await running).toBe(130);
      expect(t.stdout()).toBe('{"id":"dlv_1","ok":true,"status":"PENDING"}\n');
      expect(t.stderr()).toMatch(
        /1 replayed, 0 failed; interrupted while replaying dlv_2 \(it may have been queued\); not replayed: dlv_3/,
      );
    } finally {
      await server.close();
    }
  });
});

describe('lists against the sandbox', () => {
  it('walks every unsynced recording with --all and a small page size, each exactly once', async () => {
    const all = await h.api('/recordings?limit=100');
    const { t, run } = cli(['recordings', 'list', '--all', '--limit', '3', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    const ids = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual((all.json.data as { id: string }[]).map((r) => r.id));
  });
});
