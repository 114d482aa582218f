import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Harness } from './helpers.js';

// Paging stays exact when the sandbox holds many recordings. How fast it starts and pages at
// 100,000 (sandbox.md's users' benchmark case) is measured by bench/sandbox-scale.mjs, not here:
// timed assertions fail on a loaded machine, and the walk cost the suite ~8 s of CPU.
const RECORDINGS = 10_000;
let h: Harness;
beforeAll(async () => {
  h = await start({ recordings: RECORDINGS, rateLimit: 0, seed: 'scale' });
});
afterAll(() => h.close());

interface Page {
  data: { id: string }[];
  meta: { nextCursor: string | null };
}
const list = async (query: string): Promise<Page> => (await h.api(`/recordings?${query}`)).json as unknown as Page;

describe(`${RECORDINGS.toLocaleString('en')} recordings`, () => {
  it('page 100 at a time through every unsynced one, each once, and a deep cursor goes on where it stopped', async () => {
    const order: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    do {
      const body: Page = await list(`limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      order.push(...body.data.map((item) => item.id));
      cursor = body.meta.nextCursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    expect(new Set(order).size).toBe(order.length);
    expect(order.length).toBeGreaterThanOrEqual(RECORDINGS * 0.6);
    expect(cursors).toHaveLength(Math.ceil(order.length / 100) - 1);

    // From the cursor after page 60, pages of 10 continue with the 6001st recording.
    const deep = cursors[59] as string;
    const next = await list(`limit=10&cursor=${deep}`);
    expect(next.data.map((item) => item.id)).toEqual(order.slice(6000, 6010));
  });
});
