// an export of GET /_sandbox/state (without its seed since the seed leak was
// closed) no longer started a sandbox with --data ("not a sandbox state file (seed …)"), though
// sandbox.md says the state is the format of --data. It loads now, with --data and through
// PUT /_sandbox/state; its first save writes the seed in, so later starts keep the same keys.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Harness } from './helpers.js';

let dir: string;
let a: Harness;
let exported: string;
let recordingId: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-export-'));
  a = await start({ seed: 'exported', rateLimit: 0, recordings: 5 });
  recordingId = (await a.api('/recordings?limit=1')).json.data[0].id;
  expect((await a.api(`/recordings/${recordingId}/filings`, { body: { provider: 'crm', externalId: 'E-1' } })).status).toBe(200);
  const hook = { url: 'http://127.0.0.1:9/export', events: ['recording.completed'] };
  expect((await a.api('/webhooks', { body: hook, headers: { 'idempotency-key': 'export-test-1' } })).status).toBe(201);
  const res = await a.control('/state');
  expect(res.json.seed).toBeUndefined();
  exported = res.text;
});
afterAll(async () => {
  await a.close();
  await rm(dir, { recursive: true, force: true });
});

async function holdsTheExport(h: Harness): Promise<void> {
  expect((await h.api(`/recordings/${recordingId}`)).json.data.syncCount).toBe(1);
  expect((await h.api('/webhooks')).json.data.map((s: { url: string }) => s.url)).toEqual(['http://127.0.0.1:9/export']);
}

describe('an export of GET /_sandbox/state', () => {
  it('starts a sandbox with --data and no --seed; its first save writes a seed, so the next start has the same keys', async () => {
    const file = join(dir, 'no-seed.json');
    await writeFile(file, exported);
    const b = await start({ seed: undefined, dataFile: file, rateLimit: 0 });
    try {
      await holdsTheExport(b);
    } finally {
      await b.close();
    }
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(typeof saved.seed).toBe('string');
    const c = await start({ seed: undefined, dataFile: file, rateLimit: 0 });
    try {
      expect(c.keys).toEqual(b.keys);
      await holdsTheExport(c);
    } finally {
      await c.close();
    }
  });

  it('starts with --data and the --seed it was made with: the same keys as the sandbox it came from', async () => {
    const file = join(dir, 'with-seed.json');
    await writeFile(file, exported);
    const b = await start({ seed: 'exported', dataFile: file, rateLimit: 0 });
    try {
      expect(b.keys).toEqual(a.keys);
      await holdsTheExport(b);
    } finally {
      await b.close();
    }
  });

  it('loads through PUT /_sandbox/state', async () => {
    const b = await start({ seed: 'exported', rateLimit: 0, recordings: 5 });
    try {
      const res = await fetch(`${b.base}/_sandbox/state`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: exported,
      });
      expect(res.status).toBe(204);
      await holdsTheExport(b);
    } finally {
      await b.close();
    }
  });
});
