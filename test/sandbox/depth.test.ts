// a body nested thousands of levels deep was stored, then every answer about it
// (and every later --data save) overflowed the stack. The sandbox refuses what it could not answer
// or store: 400 INVALID_INPUT before any change, by the same 256-level rule as rfs's `file`.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxStartError } from '../../src/sandbox/index.js';
import { MAX_JSON_DEPTH, MAX_METADATA_DEPTH, bytesNestDeeperThan } from '../../src/shared/json-depth.js';
import { start, type Harness } from './helpers.js';

/** JSON text of an object `levels` levels deep, built as text: no recursion in the test either. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
const filing = (externalId: string, metadata: string): string => `{"provider":"clio","externalId":"${externalId}","metadata":${metadata}}`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-depth-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A control request with the body as text, exactly as given. */
async function controlText(h: Harness, path: string, body: string, method = 'POST'): Promise<{ status: number; code: unknown }> {
  const res = await fetch(`${h.base}/_sandbox${path}`, { method, body, headers: { 'content-type': 'application/json' } });
  return { status: res.status, code: ((await res.json()) as { code?: unknown }).code };
}

async function firstId(h: Harness): Promise<string> {
  return (await h.api('/recordings?limit=1')).json.data[0].id as string;
}

describe('bodies nested too deep', () => {
  it('refuses metadata 5,000 levels deep with 400 INVALID_INPUT, storing nothing, and keeps answering', async () => {
    const h = await start({ rateLimit: 0 });
    try {
      const id = await firstId(h);
      const res = await h.api(`/recordings/${id}/filings`, { body: filing('DEEP-1', nested(5000)) });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('INVALID_INPUT');
      const after = await h.api(`/recordings/${id}`);
      expect(after.status).toBe(200);
      expect(after.json.data.syncCount).toBe(0);
      expect(after.json.data.lastSyncedAt).toBeNull();
      // The same pair is not remembered: it files now, as new.
      const good = await h.api(`/recordings/${id}/filings`, { body: filing('DEEP-1', '{"folder":"F"}') });
      expect(good.status).toBe(200);
      expect(good.json.meta.replayed).toBe(false);
      expect((await h.control('/state')).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('takes metadata exactly as deep as its answer can carry, and a state of it can be exported and imported again', async () => {
    const h = await start({ rateLimit: 0 });
    try {
      const id = await firstId(h);
      const body = filing('EDGE', nested(MAX_METADATA_DEPTH));
      const filed = await h.api(`/recordings/${id}/filings`, { body });
      expect(filed.status).toBe(200);
      // The answer is as deep as any answer may be, and no deeper.
      expect(bytesNestDeeperThan(Buffer.from(filed.text), MAX_JSON_DEPTH)).toBe(false);
      expect(bytesNestDeeperThan(Buffer.from(filed.text), MAX_JSON_DEPTH - 1)).toBe(true);
      for (const over of [MAX_METADATA_DEPTH + 1, MAX_JSON_DEPTH - 1]) {
        const refused = await h.api(`/recordings/${id}/filings`, { body: filing(`OVER-${over}`, nested(over)) });
        expect(refused.status).toBe(400);
        expect(refused.json.code).toBe('INVALID_INPUT');
      }
      const state = await h.control('/state');
      expect(state.status).toBe(200);
      expect((await h.control('/state', state.json, 'PUT')).status).toBe(204);
      expect((await h.api(`/recordings/${id}`)).json.data.syncCount).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('refuses webhook and control bodies nested too deep, changing nothing', async () => {
    const h = await start({ rateLimit: 0 });
    try {
      const hook = await h.api('/webhooks', {
        body: `{"url":"http://127.0.0.1:9/h","events":["recording.completed"],"x":${nested(5000)}}`,
        headers: { 'idempotency-key': 'deep-hook' },
      });
      expect(hook.status).toBe(400);
      expect(hook.json.code).toBe('INVALID_INPUT');
      expect((await h.api('/webhooks')).json.data).toEqual([]);
      const faults = await controlText(h, '/faults', `{"rate":1,"x":${nested(5000)}}`);
      expect(faults).toEqual({ status: 400, code: 'INVALID_INPUT' });
      expect((await h.control('/faults')).json.data.rate).toBe(0);
      const state = await controlText(h, '/state', `{"format":"rfs-sandbox-state","x":${nested(5000)}}`, 'PUT');
      expect(state).toEqual({ status: 400, code: 'INVALID_INPUT' });
    } finally {
      await h.close();
    }
  });

  it('with --data, keeps saving the filings after a refused deep one', async () => {
    const file = join(dir, 'state.json');
    const first = await start({ rateLimit: 0, dataFile: file });
    const id = await firstId(first);
    expect((await first.api(`/recordings/${id}/filings`, { body: filing('DEEP-2', nested(5000)) })).status).toBe(400);
    expect((await first.api(`/recordings/${id}/filings`, { body: filing('AFTER', '{"n":1}') })).status).toBe(200);
    await first.close();
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.changedRecordings.map((r: { id: string }) => r.id)).toContain(id);

    const second = await start({ rateLimit: 0, dataFile: file });
    try {
      const rec = (await second.api(`/recordings/${id}`)).json.data;
      expect(rec.syncCount).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('refuses to start from a data file nested too deep, and leaves the file alone', async () => {
    const file = join(dir, 'deep.json');
    const text = `{"format":"rfs-sandbox-state","version":1,"seed":"test-seed","recordings":5,"x":${nested(5000)}}`;
    await writeFile(file, text, { mode: 0o600 });
    const error = await start({ dataFile: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as Error).message).toMatch(/nested more than \d+ levels deep/);
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});
