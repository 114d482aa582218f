// paginate() with a page reader whose answers the test releases by hand: when each page is
// requested, how far ahead it reads, what is cancelled, and where a failure resumes.
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/core/errors.js';
import { paginate, type Page, type PagePeek, type PaginateOptions } from '../../src/api/paginate.js';
import type { ApiClient } from '../../src/api/types.js';

interface Call {
  cursor: string | undefined;
  signal: AbortSignal | undefined;
  peek: ((p: PagePeek) => void) | undefined;
  resolve(page: Page<number>): void;
  reject(error: unknown): void;
}

/** A page reader that records each call and answers only when told to. */
function manual() {
  const calls: Call[] = [];
  const page: PaginateOptions<number>['page'] = (_client, query, signal, peek) =>
    new Promise<Page<number>>((resolve, reject) => {
      calls.push({ cursor: query.cursor as string | undefined, signal, peek, resolve, reject });
    });
  return { calls, page };
}

const client = {} as ApiClient;
const tick = () => new Promise((r) => setImmediate(r));
const items = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** Answers call `i`: first the peek (the raw cursor), then, when `checked`, the checked page. */
function answer(call: Call | undefined, page: Page<number>, checked = true): void {
  if (!call) throw new Error('no such call');
  call.peek?.({ cursor: page.nextCursor, count: page.items.length });
  if (checked) call.resolve(page);
}

describe('paginate --all', () => {
  it('requests the next page as soon as the answer’s cursor is known, before the page is checked', async () => {
    const m = manual();
    const seen: number[] = [];
    const done = (async () => {
      for await (const n of paginate(client, { path: '/x', query: {}, page: m.page, all: true })) seen.push(n);
    })();
    await tick();
    expect(m.calls.map((c) => c.cursor)).toEqual([undefined]);
    answer(m.calls[0], { items: items(0, 2), nextCursor: 'c2' }, false);
    // Page 1 is still being checked, and page 2 is already on its way.
    expect(m.calls.map((c) => c.cursor)).toEqual([undefined, 'c2']);
    m.calls[0]!.resolve({ items: items(0, 2), nextCursor: 'c2' });
    answer(m.calls[1], { items: items(2, 2), nextCursor: null });
    await done;
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(m.calls).toHaveLength(2);
  });

  it('keeps at most two pages waiting while the reader is slow', async () => {
    const m = manual();
    const it = paginate(client, { path: '/x', query: {}, page: m.page, all: true });
    const first = it.next();
    await tick();
    // Every page's cursor arrives at once, and nothing is read yet beyond the first item.
    for (let i = 0; i < 10 && i < m.calls.length; i++) answer(m.calls[i], { items: [i], nextCursor: `c${i + 1}` });
    await first;
    await tick();
    for (let i = 0; i < 10 && i < m.calls.length; i++) answer(m.calls[i], { items: [i], nextCursor: `c${i + 1}` });
    await tick();
    // One page being read (page 1) and two waiting: pages 2 and 3, and nothing further.
    expect(m.calls.map((c) => c.cursor)).toEqual([undefined, 'c1', 'c2']);
    await it.return(undefined);
    expect(m.calls.slice(1).every((c) => c.signal?.aborted)).toBe(true);
  });

  it('cancels the page requested ahead when a page fails its check, and resumes at the failed page', async () => {
    const m = manual();
    const done = (async () => {
      const out: number[] = [];
      for await (const n of paginate(client, { path: '/x', query: {}, page: m.page, all: true, cursor: 'c5' })) out.push(n);
      return out;
    })();
    await tick();
    answer(m.calls[0], { items: items(0, 2), nextCursor: 'c6' }, false);
    expect(m.calls[1]?.cursor).toBe('c6');
    m.calls[0]!.reject(new ContractError('data[1].id: expected string, got number'));
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).resumeCursor).toBe('c5');
    expect(m.calls[1]?.signal?.aborted).toBe(true);
  });

  it('requests no page that --max-items would not print', async () => {
    const m = manual();
    const done = (async () => {
      const out: number[] = [];
      for await (const n of paginate(client, { path: '/x', query: {}, page: m.page, all: true, maxItems: 3 })) out.push(n);
      return out;
    })();
    await tick();
    answer(m.calls[0], { items: items(0, 2), nextCursor: 'c2' });
    await tick();
    answer(m.calls[1], { items: items(2, 2), nextCursor: 'c3' });
    expect(await done).toEqual([0, 1, 2]);
    expect(m.calls.map((c) => c.cursor)).toEqual([undefined, 'c2']);
  });

  it('without --all reads one page and reports the next cursor instead of requesting it', async () => {
    const m = manual();
    const more: string[] = [];
    const done = (async () => {
      const out: number[] = [];
      for await (const n of paginate(client, { path: '/x', query: {}, page: m.page, all: false, onMore: (c) => more.push(c) })) out.push(n);
      return out;
    })();
    await tick();
    expect(m.calls[0]?.peek).toBeUndefined();
    m.calls[0]!.resolve({ items: items(0, 2), nextCursor: 'c2' });
    expect(await done).toEqual([0, 1]);
    expect(more).toEqual(['c2']);
    expect(m.calls).toHaveLength(1);
  });

  it('gives the pages as answered through pages(), the last one cut where --max-items ends', async () => {
    const m = manual();
    const done = (async () => {
      const out: (readonly number[])[] = [];
      for await (const page of paginate(client, { path: '/x', query: {}, page: m.page, all: true, maxItems: 5 }).pages()) out.push(page);
      return out;
    })();
    await tick();
    answer(m.calls[0], { items: items(0, 3), nextCursor: 'c3' });
    await tick();
    answer(m.calls[1], { items: items(3, 3), nextCursor: 'c6' });
    expect(await done).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(m.calls.map((c) => c.cursor)).toEqual([undefined, 'c3']);
  });

  it('passes Ctrl-C on to every page requested', async () => {
    const m = manual();
    const controller = new AbortController();
    const it = paginate(client, { path: '/x', query: {}, page: m.page, all: true, signal: controller.signal });
    const first = it.next();
    await tick();
    answer(m.calls[0], { items: [0], nextCursor: 'c1' }, false);
    controller.abort();
    expect(m.calls.map((c) => c.signal?.aborted)).toEqual([true, true]);
    m.calls[0]!.reject(new Error('aborted'));
    await expect(first).rejects.toThrow('aborted');
  });
});
