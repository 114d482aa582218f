import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxStartError } from '../../src/sandbox/index.js';
import { eventually, start } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-sandbox-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('--data', () => {
  it('keeps filings, created recordings, subscriptions and idempotency keys across a restart', async () => {
    const file = join(dir, 'state.json');
    const first = await start({ seed: 'persist', dataFile: file, rateLimit: 0 });
    const id = (await first.api('/recordings')).json.data[0].id as string;
    const filing = await first.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: 'P-1' } });
    const created = (await first.control('/recordings', { title: 'Made by hand', status: 'DRAFT' })).json.data.id as string;
    const sub = await first.api('/webhooks', {
      body: { url: 'http://127.0.0.1:9/h', events: ['recording.completed'] },
      headers: { 'idempotency-key': 'persisted-key' },
    });
    await first.close();

    const mode = (await stat(file)).mode & 0o777;
    expect(mode).toBe(0o600);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // No seed given: the file's seed (and so its keys) come back.
    const second = await start({ seed: undefined, dataFile: file, rateLimit: 0 });
    try {
      expect(second.keys).toEqual(first.keys);
      const after = (await second.api(`/recordings/${id}`)).json.data;
      expect(after.syncCount).toBe(1);
      expect(after.lastSyncedAt).toBe(filing.json.data.lastSyncedAt);
      const replay = await second.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: 'P-1' } });
      expect(replay.json).toEqual({ data: filing.json.data, meta: { replayed: true } });
      expect((await second.api('/recordings?limit=100')).json.data.map((r: { id: string }) => r.id)).not.toContain(id);
      const made = (await second.api(`/recordings/${created}`)).json.data;
      expect(made).toMatchObject({ title: 'Made by hand', status: 'DRAFT' });
      expect((await second.api('/webhooks')).json.data.map((s: { id: string }) => s.id)).toEqual([sub.json.data.id]);
      const again = await second.api('/webhooks', {
        body: { url: 'http://127.0.0.1:9/h', events: ['recording.completed'] },
        headers: { 'idempotency-key': 'persisted-key' },
      });
      expect(again.json).toEqual(sub.json);
    } finally {
      await second.close();
    }
  });

  it('saves soon after a change, before shutdown', async () => {
    const file = join(dir, 'live.json');
    const h = await start({ seed: 'live', dataFile: file, rateLimit: 0 });
    try {
      const id = (await h.api('/recordings')).json.data[0].id as string;
      await h.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: 'L-1' } });
      const { readFile } = await import('node:fs/promises');
      // Soon: polled until the file holds it (5 s at most), not read once after a guessed sleep.
      const saved = await eventually(async () => {
        const state = JSON.parse(await readFile(file, 'utf8').catch(() => '{}'));
        return state.changedRecordings?.some((r: { id: string }) => r.id === id) ? state : undefined;
      });
      expect(saved.changedRecordings.map((r: { id: string }) => r.id)).toContain(id);
    } finally {
      await h.close();
    }
  });

  it('refuses a data file made with another seed', async () => {
    const file = join(dir, 'seeded.json');
    await (await start({ seed: 'one', dataFile: file })).close();
    await expect(start({ seed: 'two', dataFile: file })).rejects.toBeInstanceOf(SandboxStartError);
  });

  it('refuses a damaged data file instead of overwriting it', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"format": "rfs-sandbox-state", "vers');
    await expect(start({ dataFile: file })).rejects.toThrow(/not valid JSON/);
    await writeFile(file, '{"hello": "world"}');
    await expect(start({ dataFile: file })).rejects.toThrow(/not a sandbox state file/);
  });

  // such a file was generated until memory ran out, after about a minute.
  it('refuses at once a data file claiming more recordings than --recordings allows, leaving it alone', async () => {
    const file = join(dir, 'huge.json');
    const state = {
      format: 'rfs-sandbox-state' as const,
      version: 1 as const,
      seed: 'test-seed',
      recordings: 50_000_000,
      changedRecordings: [],
      subscriptions: [],
      deliveries: [],
      idempotency: [],
    };
    const text = JSON.stringify(state);
    await writeFile(file, text, { mode: 0o600 });
    // Refused before anything is generated (it used to run for a minute, then out of memory).
    const error = await start({ dataFile: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as Error).message).toBe(
      `the data file ${file} claims 50000000 recordings; a sandbox holds an integer from 0 to 1000000 (as --recordings); move it away to start fresh`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);

    // The same count is refused as fixtures and by PUT /_sandbox/state, naming the field.
    await expect(start({ fixtures: state })).rejects.toThrow(/bad field at recordings: must be an integer from 0 to 1000000/);
    const h = await start();
    try {
      const res = await h.control('/state', state, 'PUT');
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_INPUT', path: 'recordings' });
    } finally {
      await h.close();
    }
  });
});

describe('POST /_sandbox/reset', () => {
  it('goes back to the seeded state: filings undone, created recordings and subscriptions gone, same keys', async () => {
    const h = await start({ seed: 'reset', rateLimit: 0 });
    try {
      const before = (await h.api('/recordings')).json;
      const id = before.data[0].id as string;
      await h.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: 'R-1' } });
      const created = (await h.control('/recordings', { status: 'COMPLETED' })).json.data.id as string;
      await h.api('/webhooks', {
        body: { url: 'http://127.0.0.1:9/h', events: ['recording.completed'] },
        headers: { 'idempotency-key': 'reset-key-1' },
      });
      const res = await h.control('/reset', {});
      expect(res.status).toBe(204);
      expect((await h.api('/recordings')).json).toEqual(before);
      expect((await h.api(`/recordings/${created}`)).status).toBe(404);
      expect((await h.api('/webhooks')).json.data).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
