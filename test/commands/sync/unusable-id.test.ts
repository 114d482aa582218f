// One recording id that cannot be handed to the command: an id holding a NUL
// byte (RFS_RECORDING_ID cannot carry one) or an empty one (its filing would go to
// `/recordings//filings`) fails that recording alone as the service's contract error, on its
// own line, counted; the other recordings are fetched, run and filed; sync exits 8.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { page, recording } from '../../helpers/fixtures.js';
import { scenarioCli } from '../../helpers/scenario-cli.js';

const KEY = 'service_pk_unusableIdKEY_0123456789';
const scenario = scenarioCli({ name: 'unusable-id', key: KEY, env: { PATH: process.env.PATH } });

const detail = (n: number) => ({ data: recording(n, { transcript: 'Hello.' }) });
const filed = (id: string) => ({
  data: {
    id,
    lastSyncedAt: '2026-11-22T14:05:00.000Z',
    syncCount: 1,
    syncMetadata: { provider: 'crm', externalId: `EXT-${id}`, filedAt: '2026-11-22T14:05:00.000Z' },
  },
  meta: { replayed: false },
});

describe('rfs sync, a listed id that cannot be passed to the command', () => {
  it('reports the NUL and the empty id each on its line as a contract error, files the others, exits 8', async () => {
    const listed = [recording(1), recording(2, { id: 'rec_\u0000bad' }), recording(3, { id: '' }), recording(4)];
    scenario.server.queue(
      { expect: { method: 'GET', url: /^\/api\/v1\/recordings\?/ }, body: page(listed, null, 100) },
      { expect: { method: 'GET', url: '/api/v1/recordings/rec_0001' }, body: detail(1) },
      { expect: { method: 'POST', url: '/api/v1/recordings/rec_0001/filings' }, status: 201, body: filed('rec_0001') },
      { expect: { method: 'GET', url: '/api/v1/recordings/rec_0004' }, body: detail(4) },
      { expect: { method: 'POST', url: '/api/v1/recordings/rec_0004/filings' }, status: 201, body: filed('rec_0004') },
    );
    const journal = join(scenario.dir, 'journal.jsonl');
    const { t, run } = scenario.cli([
      'sync',
      '--exec',
      'echo "EXT-$RFS_RECORDING_ID"',
      '--provider',
      'crm',
      '--journal',
      journal,
      '-o',
      'ndjson',
    ]);
    const code = await run();
    expect(code).toBe(8);
    const lines = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean; externalId?: string; error?: { code: string; title: string } });
    expect(lines.map((l) => [l.id, l.ok])).toEqual([
      ['rec_0001', true],
      ['rec_\u0000bad', false],
      ['', false],
      ['rec_0004', true],
    ]);
    expect(lines[0]?.externalId).toBe('EXT-rec_0001');
    expect(lines[1]?.error).toMatchObject({ code: 'CONTRACT', title: expect.stringMatching(/NUL byte/) });
    expect(lines[2]?.error).toMatchObject({ code: 'CONTRACT', title: expect.stringMatching(/empty id/) });
    expect(t.stderr()).toBe('sync: pass done: 2 filed, 2 failed\n');
  }, 30_000);
});
