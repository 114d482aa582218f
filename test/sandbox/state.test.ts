import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SandboxStartError } from '../../src/sandbox/index.js';
import { sandboxOptions } from '../../src/commands/sandbox/run.js';
import { start, type Harness } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-state-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open: Harness[] = [];
async function sandbox(options: Parameters<typeof start>[0] = {}): Promise<Harness> {
  const h = await start({ rateLimit: 0, ...options });
  open.push(h);
  return h;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

const ids = async (h: Harness, query = 'limit=100'): Promise<string[]> =>
  (await h.api(`/recordings?${query}`)).json.data.map((r: { id: string }) => r.id);
const file = (h: Harness, id: string, externalId: string) =>
  h.api(`/recordings/${id}/filings`, { body: { provider: 'state-test', externalId } });

describe('GET and PUT /_sandbox/state', () => {
  it('exports the whole state in the --data format, and putting it back undoes later changes', async () => {
    const h = await sandbox({ seed: 'state-1' });
    const [first, second] = await ids(h);
    await file(h, first as string, 'S-1');
    const made = (await h.control('/recordings', { title: 'Kept', status: 'COMPLETED' })).json.data.id as string;
    const exported = await h.control('/state');
    expect(exported.status).toBe(200);
    expect(exported.json).toMatchObject({
      format: 'rfs-sandbox-state',
      version: 1,
      recordings: 25,
      subscriptions: [],
      deliveries: [],
      idempotency: [],
    });
    expect(exported.json.changedRecordings.map((r: { id: string }) => r.id).sort()).toEqual([first, made].sort());

    await file(h, second as string, 'S-2');
    await h.control('/recordings', { title: 'Dropped' });
    const put = await h.control('/state', exported.json, 'PUT');
    expect(put.status).toBe(204);
    expect((await h.api(`/recordings/${first}`)).json.data.syncCount).toBe(1);
    expect((await h.api(`/recordings/${second}`)).json.data.syncCount).toBe(0);
    expect((await h.api(`/recordings/${made}`)).json.data.title).toBe('Kept');
    expect((await h.control('/state')).json).toEqual(exported.json);
    // The filing made before the export is remembered: the same pair is a replay.
    expect((await file(h, first as string, 'S-1')).json.meta.replayed).toBe(true);
  });

  it('takes back a state larger than the 1 MiB that bounds other bodies', async () => {
    const h = await sandbox({ seed: 'state-big' });
    const made = (await h.control('/recordings', { title: 'Template', status: 'COMPLETED' })).json.data.id as string;
    const state = (await h.control('/state')).json;
    const template = state.changedRecordings.find((r: { id: string }) => r.id === made);
    state.changedRecordings = Array.from({ length: 5000 }, (_, i) => ({
      ...template,
      id: `rec_big${i}`,
      title: `Big ${i}`,
      createdAt: template.createdAt + i,
    }));
    const body = JSON.stringify(state);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    expect((await h.control('/state', state, 'PUT')).status).toBe(204);
    expect((await h.api('/recordings/rec_big4999')).json.data.title).toBe('Big 4999');
    expect((await h.api(`/recordings/${made}`)).status).toBe(404);
  });

  it('refuses a bad state with 400 and the path of the bad field, changing nothing', async () => {
    const h = await sandbox({ seed: 'state-2' });
    const [id] = await ids(h);
    await file(h, id as string, 'B-1');
    const state = (await h.control('/state')).json;
    const bad = structuredClone(state);
    bad.changedRecordings[0].status = 'FINISHED';
    const res = await h.control('/state', bad, 'PUT');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json).toMatchObject({
      code: 'INVALID_INPUT',
      status: 400,
      path: 'changedRecordings[0].status',
      requestId: expect.any(String),
    });
    expect(res.json.detail).toMatch(/^changedRecordings\[0\]\.status: /);

    const missing = await h.control('/state', { ...state, subscriptions: undefined }, 'PUT');
    expect(missing.json.path).toBe('subscriptions');
    const otherSeed = await h.control('/state', { ...state, seed: 'another' }, 'PUT');
    expect(otherSeed.status).toBe(400);
    expect(otherSeed.json.path).toBe('seed');
    expect((await h.control('/state', [{ title: 'a list' }], 'PUT')).status).toBe(400);
    expect((await h.control('/state', 'not json', 'PUT')).status).toBe(400);
    expect((await h.control('/state')).json).toEqual(state);
  });
});

describe('--fixtures', () => {
  it('starts from an exported state', async () => {
    const a = await sandbox({ seed: 'fix-1' });
    const [id] = await ids(a);
    const filed = await file(a, id as string, 'F-1');
    const path = join(dir, 'state.json');
    await writeFile(path, (await a.control('/state?includeSeed=1')).text);
    const b = await sandbox({ seed: undefined, fixtures: path });
    expect(b.keys).toEqual(a.keys);
    expect((await b.api(`/recordings/${id}`)).json.data.lastSyncedAt).toBe(filed.json.data.lastSyncedAt);
  });

  it('starts from a plain list of recordings: main holds exactly those, in the list order', async () => {
    const path = join(dir, 'list.json');
    const list = [
      { id: 'rec_first1', title: 'First', priority: 'HIGH' },
      { id: 'rec_second2', title: 'Second', status: 'PENDING' },
      { title: 'Third' },
      { id: 'rec_other3', workspace: 'other', title: 'Elsewhere' },
    ];
    await writeFile(path, JSON.stringify(list));
    const h = await sandbox({ seed: 'fix-2', fixtures: path });
    const completed = (await h.api('/recordings?limit=100')).json.data;
    // Status defaults to COMPLETED, which is what a list shows first.
    expect(completed.map((r: { title: string }) => r.title)).toEqual(['First', 'Third']);
    expect(completed[0]).toMatchObject({ id: 'rec_first1', priority: 'HIGH', status: 'COMPLETED', syncCount: 0 });
    expect((await h.api('/recordings/rec_second2')).json.data.status).toBe('PENDING');
    expect((await h.api('/recordings/rec_other3', { key: h.keys.otherWorkspace })).json.data.title).toBe('Elsewhere');
    expect((await h.api('/recordings/rec_other3')).status).toBe(404);
    // Under the same seed the list serves the same content every start.
    const again = await sandbox({ seed: 'fix-2', fixtures: list as never });
    expect((await again.api('/recordings/rec_first1')).json.data.transcript).toBe(
      (await h.api('/recordings/rec_first1')).json.data.transcript,
    );
  });

  it('refuses a bad file with the path of the bad field', async () => {
    const path = join(dir, 'bad-list.json');
    await writeFile(path, JSON.stringify([{ title: 'ok' }, { title: 'bad', status: 'FINISHED' }]));
    await expect(start({ fixtures: path })).rejects.toThrow(SandboxStartError);
    await expect(start({ fixtures: path })).rejects.toThrow(`the fixtures file ${path} has a bad field at [1].status`);
    await writeFile(path, JSON.stringify([{ id: 'rec_same' }, { id: 'rec_same' }]));
    await expect(start({ fixtures: path })).rejects.toThrow('at [1].id: the id rec_same is given twice');
    await writeFile(path, JSON.stringify({ format: 'rfs-sandbox-state', version: 1, seed: 's', recordings: -1 }));
    await expect(start({ fixtures: path })).rejects.toThrow('has a bad field at recordings');
    await writeFile(path, '{"format":');
    await expect(start({ fixtures: path })).rejects.toThrow(/is not valid JSON/);
    await expect(start({ fixtures: join(dir, 'missing.json') })).rejects.toThrow(/cannot read the fixtures file/);
  });

  it('refuses a listed id that a generated recording has', async () => {
    const h = await sandbox({ seed: 'fix-clash' });
    const taken = (await h.api('/recordings?limit=1', { key: h.keys.otherWorkspace })).json.data[0].id as string;
    await expect(start({ seed: 'fix-clash', fixtures: [{ id: taken }] as never })).rejects.toThrow(
      `the fixtures have a bad field at [0].id: ${taken} is already a recording of the sandbox`,
    );
  });

  it('is a flag of rfs sandbox', () => {
    expect(sandboxOptions({ fixtures: 'fixtures.json' })).toEqual({ fixtures: 'fixtures.json' });
  });
});

describe('snapshots', () => {
  it('saves the state by name and brings it back, as often as asked', async () => {
    const h = await sandbox({ seed: 'snap-1' });
    const [a, b] = await ids(h);
    await file(h, a as string, 'N-1');
    expect((await h.control('/snapshots', { name: 'clean' })).status).toBe(201);
    const before = (await h.control('/state')).json;
    for (let round = 0; round < 2; round++) {
      await file(h, b as string, `N-2-${round}`);
      await h.control('/recordings', { title: 'temporary' });
      await h.control(`/recordings/${a}/status`, { status: 'DRAFT' });
      const restored = await h.control('/snapshots/clean/restore', undefined, 'POST');
      expect(restored.status).toBe(204);
      expect((await h.control('/state')).json).toEqual(before);
      expect((await h.api(`/recordings/${b}`)).json.data.syncCount).toBe(0);
      expect((await h.api(`/recordings/${a}`)).json.data).toMatchObject({ status: 'COMPLETED', syncCount: 1 });
    }
  });

  it('keeps subscriptions and idempotency keys in the snapshot', async () => {
    const h = await sandbox({ seed: 'snap-2' });
    const body = { url: 'http://127.0.0.1:9/h', events: ['recording.completed'] };
    const sub = await h.api('/webhooks', { body, headers: { 'idempotency-key': 'snap-key-1' } });
    await h.control('/snapshots', { name: 'one-hook' });
    await h.api('/webhooks', { body, headers: { 'idempotency-key': 'snap-key-2' } });
    expect((await h.api('/webhooks')).json.data).toHaveLength(2);
    await h.control('/snapshots/one-hook/restore', {});
    expect((await h.api('/webhooks')).json.data.map((s: { id: string }) => s.id)).toEqual([sub.json.data.id]);
    expect((await h.api('/webhooks', { body, headers: { 'idempotency-key': 'snap-key-1' } })).json).toEqual(sub.json);
  });

  it('answers 404 for an unknown name and 400 for a bad one', async () => {
    const h = await sandbox();
    const res = await h.control('/snapshots/nothing/restore', {});
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('RESOURCE_NOT_FOUND');
    const bad = await h.control('/snapshots', { name: 'a b' });
    expect(bad.status).toBe(400);
    expect(bad.json.path).toBe('name');
    expect((await h.control('/snapshots', {})).json.path).toBe('name');
  });
});
