import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilingResponse } from '../../src/shared/schemas.js';
import { start, type Harness } from './helpers.js';

let h: Harness;
let ids: string[] = [];
let next = 0;
beforeAll(async () => {
  h = await start({ rateLimit: 0, recordings: 40 });
  ids = (await h.api('/recordings?limit=100')).json.data.map((r: { id: string }) => r.id);
});
afterAll(() => h.close());

/** A COMPLETED, unsynced recording no other test has used. */
function fresh(): string {
  const id = ids[next++];
  if (!id) throw new Error('out of recordings');
  return id;
}

const file = (id: string, body: unknown, key?: string) => h.api(`/recordings/${id}/filings`, { body, ...(key ? { key } : {}) });

describe('POST /recordings/:id/filings', () => {
  it('files a COMPLETED recording: syncCount 1, lastSyncedAt and syncMetadata set, status and updatedAt kept', async () => {
    const id = fresh();
    const before = (await h.api(`/recordings/${id}`)).json.data;
    const res = await file(id, {
      provider: 'clio',
      externalId: 'DOC-1',
      externalUrl: 'https://clio.example/doc/1',
      filedAt: '2025-07-01T10:00:00+02:00',
      metadata: { folder: 'F1' },
    });
    expect(res.status).toBe(200);
    expect(FilingResponse.safeParse(res.json).success).toBe(true);
    expect(res.json.meta).toEqual({ replayed: false });
    expect(res.json.data).toMatchObject({
      id,
      syncCount: 1,
      syncMetadata: {
        provider: 'clio',
        externalId: 'DOC-1',
        externalUrl: 'https://clio.example/doc/1',
        filedAt: '2025-07-01T08:00:00.000Z',
        metadata: { folder: 'F1' },
      },
    });
    const after = (await h.api(`/recordings/${id}`)).json.data;
    expect(after.status).toBe('COMPLETED');
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.syncCount).toBe(1);
    expect(after.lastSyncedAt).toBe(res.json.data.lastSyncedAt);
    const unsynced = (await h.api('/recordings?limit=100')).json.data.map((r: { id: string }) => r.id);
    const synced = (await h.api('/recordings?limit=100&syncState=synced')).json.data.map((r: { id: string }) => r.id);
    expect(unsynced).not.toContain(id);
    expect(synced).toContain(id);
  });

  it('answers a repeated (provider, externalId) with the stored filing, replayed, and changes nothing', async () => {
    const id = fresh();
    const first = await file(id, { provider: 'clio', externalId: 'DOC-2' });
    const again = await file(id, { provider: 'clio', externalId: 'DOC-2', externalUrl: 'https://other.example' });
    expect(again.status).toBe(200);
    expect(again.json.meta.replayed).toBe(true);
    expect(again.json.data).toEqual(first.json.data);
    expect((await h.api(`/recordings/${id}`)).json.data.syncCount).toBe(1);
  });

  it('records a different pair as a new filing', async () => {
    const id = fresh();
    await file(id, { provider: 'clio', externalId: 'A' });
    const second = await file(id, { provider: 'clio', externalId: 'B' });
    const third = await file(id, { provider: 'imanage', externalId: 'A' });
    expect(second.json.data.syncCount).toBe(2);
    expect(third.json.data.syncCount).toBe(3);
    expect(third.json.meta.replayed).toBe(false);
  });

  it('makes one filing of concurrent identical requests', async () => {
    const id = fresh();
    const statsBefore = (await h.control('/stats')).json.filings as number;
    const answers = await Promise.all(Array.from({ length: 12 }, () => file(id, { provider: 'clio', externalId: 'SAME' })));
    expect(answers.every((a) => a.status === 200 && a.json.data.syncCount === 1)).toBe(true);
    expect(answers.filter((a) => a.json.meta.replayed === false)).toHaveLength(1);
    expect((await h.api(`/recordings/${id}`)).json.data.syncCount).toBe(1);
    expect((await h.control('/stats')).json.filings).toBe(statsBefore + 1);
  });

  it('answers 409 RECORDING_NOT_COMPLETED for any other status', async () => {
    for (const status of ['DRAFT', 'PENDING', 'CLAIMED', 'REVIEW_PENDING', 'ARCHIVED']) {
      const list = await h.api(`/recordings?status=${status}&syncState=all&limit=1`);
      const id = list.json.data[0]?.id as string;
      expect(id, status).toBeDefined();
      const res = await file(id, { provider: 'clio', externalId: 'X' });
      expect(res.status).toBe(409);
      expect(res.json.code).toBe('RECORDING_NOT_COMPLETED');
      expect(res.json.type).toBe('https://sandbox.rfs.invalid/problems/recording-not-completed');
    }
  });

  it('answers 404 for an unknown recording', async () => {
    const res = await file('rec_nope', { provider: 'clio', externalId: 'X' });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('RESOURCE_NOT_FOUND');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form data', 'application/x-www-form-urlencoded'],
    ['another charset', 'application/json; charset=latin1'],
    ['a JSON-like type', 'application/merge-patch+json'],
  ])('answers 415 UNSUPPORTED_CONTENT_TYPE for %s', async (_name, contentType) => {
    const res = await h.api(`/recordings/${ids[0]}/filings`, {
      body: { provider: 'p', externalId: 'x' },
      headers: { 'content-type': contentType },
    });
    expect(res.status).toBe(415);
    expect(res.json.code).toBe('UNSUPPORTED_CONTENT_TYPE');
  });

  it('answers 415 for a POST without a content type', async () => {
    const res = await fetch(`${h.base}/api/v1/recordings/${ids[0]}/filings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.admin}` },
    });
    expect(res.status).toBe(415);
  });

  it('accepts application/json with a UTF-8 charset', async () => {
    const res = await h.api(`/recordings/${fresh()}/filings`, {
      body: { provider: 'p', externalId: 'é' },
      headers: { 'content-type': 'Application/JSON; charset="UTF-8"' },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.syncMetadata.externalId).toBe('é');
  });

  it.each([
    ['invalid JSON', '{"provider": '],
    ['a JSON array', '[]'],
    ['no provider', { externalId: 'x' }],
    ['an empty externalId', { provider: 'p', externalId: '' }],
    ['a number for provider', { provider: 7, externalId: 'x' }],
    ['an unknown field', { provider: 'p', externalId: 'x', extra: true }],
    ['a bad filedAt', { provider: 'p', externalId: 'x', filedAt: 'last tuesday' }],
    ['a filedAt without a zone', { provider: 'p', externalId: 'x', filedAt: '2025-01-01T10:00:00' }],
    ['a filedAt on a day February does not have', { provider: 'p', externalId: 'x', filedAt: '2025-02-30T00:00:00Z' }],
    ['a filedAt on a day April does not have', { provider: 'p', externalId: 'x', filedAt: '2026-04-31T10:00:00+02:00' }],
    ['metadata that is not an object', { provider: 'p', externalId: 'x', metadata: [1, 2] }],
  ])('answers 400 INVALID_INPUT for %s', async (_name, body) => {
    const id = ids[0] as string;
    const res = await file(id, body);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_INPUT');
  });

  it('answers 400 for query parameters it does not take', async () => {
    const res = await h.api(`/recordings/${ids[0]}/filings?dryRun=1`, { body: { provider: 'p', externalId: 'x' } });
    expect(res.json.code).toBe('INVALID_INPUT');
  });
});
