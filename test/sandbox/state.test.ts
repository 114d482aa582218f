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

// what a state may hold is what the API could have made.
describe('a state is checked as the API would have made it', () => {
  /** A state with one changed recording and one subscription, as GET /_sandbox/state exports it. */
  async function exported(h: Harness) {
    const [id] = await ids(h);
    await file(h, id as string, 'T-1');
    const created = await h.api('/webhooks', {
      body: { url: 'http://127.0.0.1:9/hook', events: ['recording.completed'] },
      headers: { 'idempotency-key': 'state-check-1' },
    });
    expect(created.status).toBe(201);
    // With its seed, as a --data file holds it (the export leaves the seed out unless asked).
    return (await h.control('/state?includeSeed=1')).json;
  }

  it('refuses times out of range (±1e308) with the field path, through PUT, --fixtures and --data', async () => {
    const h = await sandbox({ seed: 'state-times' });
    const state = await exported(h);
    const before = (await h.control('/state')).json;
    const cases: [string, (s: typeof state) => void][] = [
      ['changedRecordings[0].createdAt', (s) => (s.changedRecordings[0].createdAt = 1e308)],
      ['changedRecordings[0].updatedAt', (s) => (s.changedRecordings[0].updatedAt = -1e308)],
      ['changedRecordings[0].lastSyncedAt', (s) => (s.changedRecordings[0].lastSyncedAt = 1e308)],
      ['subscriptions[0].createdAt', (s) => (s.subscriptions[0].createdAt = 8.64e15 + 1)],
    ];
    for (const [path, spoil] of cases) {
      const bad = structuredClone(state);
      spoil(bad);
      const res = await h.control('/state', bad, 'PUT');
      expect(res.status, path).toBe(400);
      expect(res.json.path).toBe(path);
      await expect(start({ seed: 'state-times', fixtures: bad })).rejects.toThrow(`has a bad field at ${path}: must be a time`);
      const data = join(dir, 'times.json');
      await writeFile(data, JSON.stringify(bad));
      await expect(start({ dataFile: data })).rejects.toThrow(`(${path}: must be a time`);
    }
    // Nothing changed, and every read still answers.
    expect((await h.control('/state')).json).toEqual(before);
    expect((await h.api('/recordings?syncState=all&limit=100')).status).toBe(200);
  });

  it('refuses more subscriptions than a workspace may have, an id given twice, and a bad secret, with the path', async () => {
    const h = await sandbox({ seed: 'state-subs' });
    const state = await exported(h);
    const sub = state.subscriptions[0];
    const many = Array.from({ length: 60 }, (_, i) => ({ ...sub, id: `wh_many${i}`, createdAt: sub.createdAt + i }));
    const cases: [string, Record<string, unknown>][] = [
      ['subscriptions[50]', { subscriptions: many }],
      ['subscriptions[1].id', { subscriptions: [sub, { ...sub }] }],
      ['subscriptions[0].secret', { subscriptions: [{ ...sub, secret: '' }] }],
      ['subscriptions[0].id', { subscriptions: [{ ...sub, id: 'not-a-webhook' }] }],
      ['changedRecordings[1].id', { changedRecordings: [state.changedRecordings[0], state.changedRecordings[0]] }],
    ];
    for (const [path, change] of cases) {
      const res = await h.control('/state', { ...state, ...change }, 'PUT');
      expect(res.status, path).toBe(400);
      expect(res.json.path, path).toBe(path);
    }
    // 50 in one workspace is the limit, not past it.
    expect((await h.control('/state', { ...state, subscriptions: many.slice(0, 50) }, 'PUT')).status).toBe(204);
    expect((await h.api('/webhooks')).json.data).toHaveLength(50);
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
