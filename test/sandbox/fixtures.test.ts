// --fixtures in the API's shape (sandbox.md, In an integrator's own tests): recordings saved
// with the real rfs commands from one sandbox start another, whose answers are the same field
// for field; every field is taken as given, a field left out is generated, and an unknown or
// ill-typed field is refused with its path.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { RECORDING_STATUSES } from '../../src/shared/schemas.js';
import { runRfs, startSandboxProcess } from '../helpers/child.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';
import { start, type Harness } from './helpers.js';

let dir: string;
let a: Harness;
let env: NodeJS.ProcessEnv;
const open: Harness[] = [];

async function sandbox(options: Parameters<typeof start>[0]): Promise<Harness> {
  const h = await start({ rateLimit: 0, ...options });
  open.push(h);
  return h;
}

async function rfs(args: string[]): Promise<unknown> {
  const r = await runRfs([...args, '-o', 'json'], { env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

/** The same command run in this process (runCli): for the many details, a process each would cost more than the check. */
async function rfsInProcess(args: string[]): Promise<unknown> {
  const t = bufferIO({ env });
  const code = await runCli([...args, '-o', 'json'], t.io, { clock: fakeTime().clock });
  expect(t.stderr()).toBe('');
  expect(code).toBe(0);
  return JSON.parse(t.stdout());
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-fixtures-'));
  a = await sandbox({ seed: 'fixtures-a', recordings: 14 });
  env = { RFS_CONFIG_DIR: dir, RFS_BASE_URL: a.base, RFS_API_KEY: a.keys.admin };
  // Filing history on some: lastSyncedAt and syncCount are part of what is saved.
  const [first, second] = (await a.api('/recordings?limit=2')).json.data;
  for (const rec of [first, second]) {
    expect((await a.api(`/recordings/${rec.id}/filings`, { body: { provider: 'fx', externalId: `E-${rec.id}` } })).status).toBe(200);
  }
  expect((await a.api(`/recordings/${first.id}/filings`, { body: { provider: 'fx', externalId: 'again' } })).status).toBe(200);
});
afterAll(async () => {
  await Promise.all(open.map((h) => h.close()));
  await rm(dir, { recursive: true, force: true });
});

/**
 * Every recording of main, as the built `rfs recordings list --include content --all -o json`
 * prints them, status by status: listed once for the file (nothing changes the first sandbox
 * after its set-up), a copy for each test.
 */
let listed: string | undefined;
async function savedList(): Promise<Record<string, unknown>[]> {
  if (listed === undefined) {
    const out: Record<string, unknown>[] = [];
    for (const status of RECORDING_STATUSES) {
      const items = await rfs(['recordings', 'list', '--status', status, '--sync-state', 'all', '--include', 'content', '--all']);
      out.push(...(items as Record<string, unknown>[]));
    }
    listed = JSON.stringify(out);
  }
  return JSON.parse(listed) as Record<string, unknown>[];
}

/** Every answer a reader can ask of the recordings: lists at each include, status by status, and details. */
async function answers(h: Harness, includes: string[], details: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const status of RECORDING_STATUSES) {
    for (const include of includes) {
      const query = `status=${status}&syncState=all&limit=100${include === '' ? '' : `&include=${include}`}`;
      const res = await h.api(`/recordings?${query}`);
      expect(res.status).toBe(200);
      out[query] = res.json.data;
    }
  }
  const ids = (out[`status=COMPLETED&syncState=all&limit=100`] as { id: string }[]).map((r) => r.id);
  for (const id of ids) {
    for (const query of details) out[`${id}?${query}`] = (await h.api(`/recordings/${id}?${query}`)).json;
  }
  return out;
}

describe('--fixtures: recordings as the API returns them', () => {
  it('a list saved with `rfs recordings list --include content` starts a sandbox (rfs sandbox --fixtures) whose lists are the same, field for field', async () => {
    const list = await savedList();
    expect(list.length).toBe(14);
    const file = join(dir, 'list.json');
    await writeFile(file, JSON.stringify(list));
    const b = await startSandboxProcess(['--fixtures', file, '--rate-limit', '0']);
    try {
      const hb = { api: (path: string) => fetchAnswer(b.baseUrl, b.apiKeys.admin as string, path) } as Harness;
      const expected = await answers(a, ['', 'content'], []);
      const got = await answers(hb, ['', 'content'], []);
      expect(Object.keys(got).length).toBe(12);
      expect(got).toEqual(expected);
    } finally {
      expect(await b.stop()).toBe(0);
    }
  });

  it('details saved with `rfs recordings get --include contentJson` give the same details and lists, contentJson included', async () => {
    const list = await savedList();
    const details: unknown[] = [];
    for (const { id } of list as { id: string }[]) details.push(await rfsInProcess(['recordings', 'get', id, '--include', 'contentJson']));
    const c = await sandbox({ seed: 'fixtures-c', fixtures: details as never });
    const queries = ['', 'include=contentJson'];
    expect(await answers(c, ['', 'content', 'contentJson'], queries)).toEqual(await answers(a, ['', 'content', 'contentJson'], queries));
    // A detail without contentJson (the plain `rfs recordings get`) keeps every other field.
    const plain = await rfs(['recordings', 'get', (list[0] as { id: string }).id]);
    const d = await sandbox({ seed: 'fixtures-d', fixtures: [plain] as never });
    expect((await d.api(`/recordings/${(list[0] as { id: string }).id}`)).json).toEqual(
      (await a.api(`/recordings/${(list[0] as { id: string }).id}`)).json,
    );
    // One detail on its own, as `rfs recordings get -o json` prints it, is a list of one.
    const file = join(dir, 'one.json');
    await writeFile(file, JSON.stringify(plain));
    const e = await sandbox({ seed: 'fixtures-e', fixtures: file });
    expect((await e.api(`/recordings/${(list[0] as { id: string }).id}`)).json).toEqual(
      (await a.api(`/recordings/${(list[0] as { id: string }).id}`)).json,
    );
  });

  it('generates what is left out, and keeps what is given', async () => {
    const h = await sandbox({
      seed: 'fixtures-f',
      fixtures: [
        {
          id: 'rec_given1',
          createdAt: '2024-03-01T10:00:00.000Z',
          author: { id: 'usr_x', name: 'Ada Given', email: 'ada@example.invalid' },
          client: null,
          notes: [
            { templateName: 'Memo', contentText: 'First.\n\nSecond.' },
            { contentStatus: 'unavailable', contentText: null },
          ],
          transcript: 'A: hello',
        },
      ] as never,
    });
    const detail = (await h.api('/recordings/rec_given1?include=contentJson')).json.data;
    expect(detail).toMatchObject({
      createdAt: '2024-03-01T10:00:00.000Z',
      updatedAt: '2024-03-01T10:00:00.000Z',
      author: { id: 'usr_x', name: 'Ada Given', email: 'ada@example.invalid' },
      client: null,
      transcript: 'A: hello',
      status: 'COMPLETED',
      syncCount: 0,
      lastSyncedAt: null,
    });
    expect(detail.title.length).toBeGreaterThan(0);
    expect(detail.notes).toHaveLength(2);
    expect(detail.notes[0]).toMatchObject({ templateName: 'Memo', contentText: 'First.\n\nSecond.', contentStatus: 'available' });
    expect(detail.notes[0].contentJson).toEqual({
      type: 'doc',
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'First.' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'Second.' }] },
      ],
    });
    expect(detail.notes[1]).toMatchObject({ contentText: null, contentStatus: 'unavailable' });
    expect(detail.notes[1].contentJson).toBeUndefined();
    // What was given survives a save and a load (GET and PUT /_sandbox/state).
    const state = await h.control('/state');
    expect((await h.control('/state', state.json, 'PUT')).status).toBe(204);
    expect((await h.api('/recordings/rec_given1?include=contentJson')).json.data).toEqual(detail);
  });

  it('refuses an unknown or ill-typed field with its path, in whichever item it is', async () => {
    const ok = { id: 'rec_ok1', title: 'fine' };
    const cases: [unknown, string][] = [
      [[ok, { title: 'bad', status: 'FINISHED' }], '[1].status'],
      [[ok, { title: 'x', colour: 'red' }], '[1].colour'],
      [[ok, { notes: [{ id: 'blk_1' }, { id: 'blk_2', sortOrder: -1 }] }], '[1].notes[1].sortOrder'],
      [[ok, { author: { id: 'u', name: 'n' } }], '[1].author.email'],
      [[ok, { createdAt: '+275760-09-13T00:00:00.000Z' }], '[1].createdAt'],
      [[ok, { updatedAt: 'yesterday' }], '[1].updatedAt'],
      [[ok, { audioDuration: -5 }], '[1].audioDuration'],
      [[ok, { notes: [{ contentStatus: 'unavailable', contentText: 'text' }] }], '[1].notes[0].contentText'],
      [[{ id: 'rec_a1', notes: Array.from({ length: 51 }, () => ({})) }], '[0].notes'],
      [{ id: 'rec_lone', syncCount: 'two' }, 'syncCount'],
    ];
    // A contentJson so deep that a list answer would nest past 256 levels is refused whole.
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 126; i++) deep = { content: [deep] };
    await expect(start({ fixtures: [{ notes: [{ contentJson: deep }] }] as never })).rejects.toThrow(/nested more than 255 levels deep/);
    for (const [fixtures, path] of cases) {
      await expect(start({ fixtures: fixtures as never }), path).rejects.toThrow(`has a bad field at ${path}:`);
    }
  });
});

async function fetchAnswer(base: string, key: string, path: string) {
  const res = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}
