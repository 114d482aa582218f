// whatever filing the sandbox answers 200 it must also be able to read back,
// replay and save, and without an injected fault it never answers 500 — for any metadata,
// nested (up to well past the 256-level rule) or large. Runs against a real sandbox over HTTP,
// with --data, so every accepted filing is also written to the data file.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Harness } from '../sandbox/helpers.js';

/** `inner` wrapped in `levels` objects or arrays, as text: deep values without recursion. */
function wrapped(inner: string, levels: number, asArray: boolean): string {
  return asArray ? `${'['.repeat(levels)}${inner}${']'.repeat(levels)}` : `${'{"k":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;
}

const plain = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }).map((v) => JSON.stringify(v));
const metadata = fc.oneof(
  plain,
  // Around the rule, and far past it (5,000 once found a bug).
  fc
    .tuple(plain, fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 300, max: 6000 })), fc.boolean())
    .map(([inner, levels, asArray]) => `{"deep":${wrapped(inner, levels, asArray)}}`),
  fc.integer({ min: 0, max: 300_000 }).map((n) => JSON.stringify({ pad: 'x'.repeat(n) })),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)), // not an object: refused, never 500
);

let h: Harness;
let dir: string;
let file: string;
let ids: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-filing-prop-'));
  file = join(dir, 'state.json');
  h = await start({ rateLimit: 0, recordings: 20, dataFile: file });
  ids = (await h.api('/recordings?limit=20')).json.data.map((r: { id: string }) => r.id);
});
afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

describe('filing bodies', () => {
  it('every 200 can be read back, replayed and saved; nothing is ever 500', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), metadata, async (pick, meta) => {
        const id = ids[pick % ids.length] as string;
        const externalId = `P-${n++}`;
        const body = `{"provider":"clio","externalId":"${externalId}","metadata":${meta}}`;
        const before = (await h.api(`/recordings/${id}`)).json.data.syncCount as number;
        const res = await h.api(`/recordings/${id}/filings`, { body });
        expect(res.status).not.toBe(500);
        expect([200, 400, 413]).toContain(res.status);
        const after = await h.api(`/recordings/${id}`);
        expect(after.status).toBe(200);
        if (res.status !== 200) {
          expect(after.json.data.syncCount).toBe(before);
          return;
        }
        expect(after.json.data.syncCount).toBe(before + 1);
        const replay = await h.api(`/recordings/${id}/filings`, { body });
        expect(replay.status).toBe(200);
        expect(replay.json).toEqual({ data: res.json.data, meta: { replayed: true } });
        expect(res.json.data.syncMetadata.metadata).toEqual(JSON.parse(meta));
        expect((await h.control('/state')).status).toBe(200);
      }),
      // Always tried: a "__proto__" key (fast-check found it; zod's copy of the body lost it).
      {
        numRuns: 40,
        examples: [
          [0, '{"__proto__":[]}'],
          [1, '{"__proto__":{"a":1},"b":2}'],
        ],
      },
    );
    await h.sandbox.close();
    expect(h.logs.filter((line) => /could not save|failed/.test(line))).toEqual([]);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.changedRecordings.length).toBeGreaterThan(0);
    // And it starts again from what it saved.
    const again = await start({ rateLimit: 0, dataFile: file });
    await again.close();
  });
});
