import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Harness } from './helpers.js';

// The benchmark case of sandbox.md's users: 100 000 recordings must start in seconds and page fast.
let h: Harness;
let startedIn = 0;
let deepCursor: string | null = null;
beforeAll(async () => {
  const t = performance.now();
  h = await start({ recordings: 100_000, rateLimit: 0, seed: 'scale' });
  startedIn = performance.now() - t;
}, 30_000);
afterAll(() => h.close());

describe('100 000 recordings', () => {
  it('start in a few seconds', () => {
    expect(startedIn).toBeLessThan(5000);
  });

  it('page 100 at a time through every unsynced one, each once, quickly', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    const t = performance.now();
    do {
      const res = await fetch(`${h.base}/api/v1/recordings?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { authorization: `Bearer ${h.keys.admin}` },
      });
      const body = (await res.json()) as { data: { id: string }[]; meta: { nextCursor: string | null } };
      for (const item of body.data) seen.add(item.id);
      cursor = body.meta.nextCursor;
      pages++;
      if (pages === 600) deepCursor = cursor;
    } while (cursor);
    const elapsed = performance.now() - t;
    expect(seen.size).toBeGreaterThanOrEqual(60_000);
    expect(pages).toBe(Math.ceil(seen.size / 100));
    expect(elapsed).toBeLessThan(25_000);
  }, 40_000);

  it('serve pages from a deep cursor as fast as from the start', async () => {
    const timed = async (cursor: string | null): Promise<number> => {
      const t = performance.now();
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${h.base}/api/v1/recordings?limit=10${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: { authorization: `Bearer ${h.keys.admin}` },
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      return performance.now() - t;
    };
    expect(deepCursor).not.toBeNull();
    const fromStart = await timed(null);
    const fromDeep = await timed(deepCursor);
    expect(fromDeep).toBeLessThan(fromStart * 3 + 200);
  });
});
