import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingDetail } from '../../src/shared/schemas.js';
import { start, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await start({ rateLimit: 0 });
});
afterAll(() => h.close());

describe('control API', () => {
  it('creates a PENDING recording in main by default, and in another workspace on request', async () => {
    const res = await h.control('/recordings', {});
    expect(res.status).toBe(201);
    expect(RecordingDetail.safeParse(res.json.data).success).toBe(true);
    expect(res.json.data).toMatchObject({ status: 'PENDING', syncCount: 0, lastSyncedAt: null, notes: [], documents: [], transcript: '' });
    expect((await h.api(`/recordings/${res.json.data.id}`)).status).toBe(200);
    const other = await h.control('/recordings', { workspace: 'other', title: 'Elsewhere', priority: 'URGENT', status: 'COMPLETED' });
    expect(other.json.data).toMatchObject({ title: 'Elsewhere', priority: 'URGENT', status: 'COMPLETED' });
    expect((await h.api(`/recordings/${other.json.data.id}`)).status).toBe(404);
    expect((await h.api(`/recordings/${other.json.data.id}`, { key: h.keys.otherWorkspace })).status).toBe(200);
  });

  it('sets a status, updating updatedAt, and the recording shows up in updatedSince lists', async () => {
    const id = (await h.control('/recordings', { status: 'REVIEW_PENDING' })).json.data.id as string;
    const since = new Date(Date.now() - 1000).toISOString();
    const res = await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' });
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe('COMPLETED');
    expect(res.json.data.notes.length).toBeGreaterThan(0);
    const listed = (await h.api(`/recordings?updatedSince=${encodeURIComponent(since)}`)).json.data.map((r: { id: string }) => r.id);
    expect(listed).toContain(id);
  });

  it('validates its input', async () => {
    expect((await h.control('/recordings', { status: 'FINISHED' })).status).toBe(400);
    expect((await h.control('/recordings', { workspace: 'nowhere' })).status).toBe(400);
    expect((await h.control('/recordings/rec_none/status', { status: 'COMPLETED' })).status).toBe(404);
    expect((await h.control('/nothing-here')).json.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('reports stats', async () => {
    await h.api('/recordings');
    const stats = (await h.control('/stats')).json;
    expect(stats).toEqual({
      requests: expect.any(Number),
      faults: { 'error-before': 0, 'error-after': 0, 'rate-limit': 0, reset: 0, delay: 0 },
      filings: 0,
      filingReplays: 0,
      deliveries: { total: 0, pending: 0, succeeded: 0, failed: 0, attempts: 0 },
    });
    expect(stats.requests).toBeGreaterThan(0);
  });
});
