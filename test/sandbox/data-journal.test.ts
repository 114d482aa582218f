// --data between compactions (src/sandbox/journal.ts, saver.ts): what a SIGKILL leaves is the
// data file and its journal. Copies of both, taken while a sandbox runs, stand for that.
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { processAlive } from '../../src/core/lock.js';
import { SandboxStartError } from '../../src/sandbox/index.js';
import { start, type Harness } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-sandbox-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SEED = 'journal';

/** Files two recordings and copies the data file and journal as a kill would leave them. */
async function killedCopy(name: string): Promise<{ file: string; ids: string[]; filings: unknown[] }> {
  const live = join(dir, 'live.json');
  const h = await start({ seed: SEED, dataFile: live, rateLimit: 0 });
  const file = join(dir, name);
  try {
    // Answered once the first compaction has written the data file: copied as it stands.
    const ids = ((await h.api('/recordings?limit=2')).json.data as { id: string }[]).map((r) => r.id);
    await copyFile(live, file);
    const filings = await Promise.all(
      ids.map(async (id, i) => (await h.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: `J-${i}` } })).json.data),
    );
    // Copied straight after the answers: the journal continues the data file copied above.
    await copyFile(`${live}.journal`, `${file}.journal`);
    return { file, ids, filings };
  } finally {
    await h.close();
  }
}

async function syncCount(h: Harness, id: string): Promise<number> {
  return (await h.api(`/recordings/${id}`)).json.data.syncCount as number;
}

it('loads the changes of the journal on top of the data file, dropping a flush cut short', async () => {
  const { file, ids, filings } = await killedCopy('state.json');
  expect(JSON.parse(await readFile(file, 'utf8')).changedRecordings).toEqual([]);
  // A flush the kill cut off in the middle of its line: never acknowledged.
  await writeFile(`${file}.journal`, '{"recordings":[{"id":"rec_', { flag: 'a' });
  const h = await start({ seed: SEED, dataFile: file, rateLimit: 0 });
  try {
    for (const [i, id] of ids.entries()) {
      const again = await h.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: `J-${i}` } });
      expect(again.json).toEqual({ data: filings[i], meta: { replayed: true } });
    }
  } finally {
    await h.close();
  }
  // Closed cleanly: the data file holds everything, and the journal is gone.
  expect(
    JSON.parse(await readFile(file, 'utf8'))
      .changedRecordings.map((r: { id: string }) => r.id)
      .sort(),
  ).toEqual([...ids].sort());
  expect(await readdir(dir)).not.toContain('state.json.journal');
});

it('replays subscriptions, their deletion and idempotency keys from the journal alone', async () => {
  const live = join(dir, 'hooks-live.json');
  const file = join(dir, 'hooks.json');
  const create = (h: Harness, url: string, key: string) =>
    h.api('/webhooks', { body: { url, events: ['recording.completed'] }, headers: { 'idempotency-key': key } });
  const h = await start({ seed: SEED, dataFile: live, rateLimit: 0 });
  let kept: Awaited<ReturnType<typeof create>>;
  let removedId: string;
  try {
    // Answered once the first compaction has written the data file: copied as it stands.
    expect((await h.api('/webhooks')).json.data).toEqual([]);
    await copyFile(live, file);
    kept = await create(h, 'http://127.0.0.1:9/kept', 'journal-kept-1');
    expect(kept.status).toBe(201);
    const removed = await create(h, 'http://127.0.0.1:9/removed', 'journal-removed-1');
    removedId = removed.json.data.id;
    expect((await h.api(`/webhooks/${removedId}`, { method: 'DELETE' })).status).toBe(204);
    // Copied straight after the answers, before close() compacts: what a kill would leave.
    await copyFile(`${live}.journal`, `${file}.journal`);
  } finally {
    await h.close();
  }
  const stored = JSON.parse(await readFile(file, 'utf8'));
  expect([stored.subscriptions, stored.idempotency]).toEqual([[], []]);

  const again = await start({ seed: SEED, dataFile: file, rateLimit: 0 });
  try {
    const listed = (await again.api('/webhooks')).json.data.map((s: { id: string }) => s.id);
    expect(listed).toEqual([kept.json.data.id]);
    expect(listed).not.toContain(removedId);
    // The same key answers again with the subscription it made, secret included; nothing new.
    const replay = await create(again, 'http://127.0.0.1:9/kept', 'journal-kept-1');
    expect([replay.status, replay.json]).toEqual([kept.status, kept.json]);
    expect((await again.api('/webhooks')).json.data).toHaveLength(1);
  } finally {
    await again.close();
  }
});

it('refuses a journal damaged before its last line, and leaves both files as they were', async () => {
  const { file } = await killedCopy('damaged.json');
  const lines = (await readFile(`${file}.journal`, 'utf8')).split('\n');
  lines.splice(1, 0, '{"recordings": "not a list"}');
  const journal = lines.join('\n');
  await writeFile(`${file}.journal`, journal);
  const data = await readFile(file, 'utf8');
  const error = await start({ dataFile: file }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SandboxStartError);
  expect((error as Error).message).toMatch(
    new RegExp(`^the journal ${file}\\.journal is damaged at line 2 \\(recordings: .+\\); move it away to start from the data file alone`),
  );
  expect(await readFile(file, 'utf8')).toBe(data);
  expect(await readFile(`${file}.journal`, 'utf8')).toBe(journal);

  await writeFile(`${file}.journal`, 'not json\n');
  await expect(start({ dataFile: file })).rejects.toThrow(/damaged at line 1 \(not valid JSON\)/);
});

it('ignores a journal that continues other contents of the data file (a kill between the two writes of a compaction)', async () => {
  const { file, ids } = await killedCopy('stale.json');
  // The data file as a compaction rewrote it (here: by hand, unchanged in meaning, other bytes).
  const data = JSON.parse(await readFile(file, 'utf8'));
  await writeFile(file, JSON.stringify(data, null, 2));
  const h = await start({ seed: SEED, dataFile: file, rateLimit: 0 });
  try {
    expect(await syncCount(h, ids[0] as string)).toBe(0);
  } finally {
    await h.close();
  }
});

it('removes the temporary files of writers that were killed, and only those', async () => {
  const file = join(dir, 'temps.json');
  let dead = 4_000_000;
  while (processAlive(dead)) dead--;
  const stale = [`.temps.json.${dead}.1a2b.tmp`, `.temps.json.journal.${dead}.ff.tmp`];
  const kept = [`.temps.json.${process.pid}.3c4d.tmp`, '.other.json.1.ab.tmp', 'notes.tmp'];
  for (const name of [...stale, ...kept]) await writeFile(join(dir, name), 'partial');
  const h = await start({ dataFile: file });
  await h.close();
  expect((await readdir(dir)).sort()).toEqual([...kept, 'temps.json'].sort());
});
