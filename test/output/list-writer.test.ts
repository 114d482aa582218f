import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { IO } from '../../src/core/io.js';
import { writeList, writeResource } from '../../src/output/list-writer.js';
import type { Column } from '../../src/output/table.js';
import { bufferIO } from '../helpers/io.js';

interface Item {
  id: string;
  title: string;
  extra?: unknown;
}

const columns: Column<Item>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'TITLE', value: (r) => r.title, flex: true },
];
const table = { columns, color: false, width: 80 };

async function* from<T>(items: T[], failAfter?: number): AsyncGenerator<T> {
  let n = 0;
  for (const item of items) {
    if (failAfter !== undefined && n === failAfter) throw new Error('page 2 failed');
    n++;
    yield item;
  }
  if (failAfter !== undefined && n === failAfter) throw new Error('page 2 failed');
}

const items: Item[] = [
  { id: 'a', title: 'First' },
  { id: 'b', title: 'Second', extra: { unknownField: [1, 2] } },
];

describe('writeList json', () => {
  test('writes an array with one item per line and returns the count', async () => {
    const b = bufferIO();
    expect(await writeList(b.io, 'json', from(items), table)).toBe(2);
    expect(b.stdout()).toBe('[\n{"id":"a","title":"First"},\n{"id":"b","title":"Second","extra":{"unknownField":[1,2]}}\n]\n');
    expect(JSON.parse(b.stdout())).toEqual(items);
  });

  test('writes [] for an empty list', async () => {
    const b = bufferIO();
    expect(await writeList(b.io, 'json', from([]), table)).toBe(0);
    expect(b.stdout()).toBe('[]\n');
  });

  test('closes the array when the listing fails midway, then rethrows', async () => {
    const b = bufferIO();
    await expect(writeList(b.io, 'json', from(items, 1), table)).rejects.toThrow('page 2 failed');
    expect(b.stdout()).toBe('[\n{"id":"a","title":"First"}\n]\n');
    expect(JSON.parse(b.stdout())).toEqual([items[0]]);
  });

  // cli.md, Output: `[]` would let `| jq length` read a failure as zero items.
  test('prints nothing at all when the first page fails', async () => {
    const b = bufferIO();
    await expect(writeList(b.io, 'json', from(items, 0), table)).rejects.toThrow('page 2 failed');
    expect(b.stdout()).toBe('');
  });

  test('writes what it has whenever the source waits (a page), not at the end', async () => {
    const b = bufferIO();
    const seen: string[] = [];
    // Each wait stands for fetching the next page: what came before it must be out by then.
    const page = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));
    async function* watched(): AsyncGenerator<Item> {
      await page();
      seen.push(b.stdout());
      yield { id: 'a', title: 'x' };
      await page();
      seen.push(b.stdout());
      yield { id: 'b', title: 'y' };
      await page();
      seen.push(b.stdout());
    }
    await writeList(b.io, 'json', watched(), table);
    // The array opens with its first item, not before the first page came.
    expect(seen).toEqual(['', '[\n{"id":"a","title":"x"}', '[\n{"id":"a","title":"x"},\n{"id":"b","title":"y"}']);
  });

  test('uses toJson for what each item prints', async () => {
    const b = bufferIO();
    await writeList(b.io, 'json', from(items), table, { toJson: (i) => ({ key: i.id }) });
    expect(b.stdout()).toBe('[\n{"key":"a"},\n{"key":"b"}\n]\n');
  });

  test('escapes C1 controls and bidi overrides that JSON.stringify leaves raw, keeping the same value', async () => {
    const b = bufferIO();
    const title = 'x\u009b31m\u202e\x1b[2J\u200f';
    await writeList(b.io, 'json', from([{ id: 'a', title }]), table);
    expect(b.stdout()).toBe('[\n{"id":"a","title":"x\\u009b31m\\u202e\\u001b[2J\\u200f"}\n]\n');
    expect((JSON.parse(b.stdout()) as Item[])[0]?.title).toBe(title);
  });

  test('accepts a plain array as well as an async iterable', async () => {
    const b = bufferIO();
    expect(await writeList(b.io, 'json', items, table)).toBe(2);
    expect(JSON.parse(b.stdout())).toEqual(items);
  });
});

describe('writeList ndjson', () => {
  test('writes one line per item', async () => {
    const b = bufferIO();
    expect(await writeList(b.io, 'ndjson', from(items), table)).toBe(2);
    expect(b.stdout()).toBe('{"id":"a","title":"First"}\n{"id":"b","title":"Second","extra":{"unknownField":[1,2]}}\n');
  });

  test('keeps the lines written before a failure, then rethrows', async () => {
    const b = bufferIO();
    await expect(writeList(b.io, 'ndjson', from(items, 1), table)).rejects.toThrow('page 2 failed');
    expect(b.stdout()).toBe('{"id":"a","title":"First"}\n');
  });

  test('writes nothing for an empty list', async () => {
    const b = bufferIO();
    expect(await writeList(b.io, 'ndjson', from([]), table)).toBe(0);
    expect(b.stdout()).toBe('');
  });
});

describe('writeList table', () => {
  test('renders the rows with a header on a terminal', async () => {
    const b = bufferIO({ stdoutIsTTY: true });
    expect(await writeList(b.io, 'table', from(items), table)).toBe(2);
    expect(b.stdout()).toBe('ID  TITLE\na   First\nb   Second\n');
  });

  test('prints nothing at all for an empty list', async () => {
    const b = bufferIO({ stdoutIsTTY: true });
    expect(await writeList(b.io, 'table', from([]), table)).toBe(0);
    expect(b.stdout()).toBe('');
  });

  test('renders the rows it got before a failure, then rethrows', async () => {
    const b = bufferIO({ stdoutIsTTY: true });
    await expect(writeList(b.io, 'table', from(items, 1), table)).rejects.toThrow('page 2 failed');
    expect(b.stdout()).toBe('ID  TITLE\na   First\n');
  });

  test('neutralises escape sequences in server text', async () => {
    const b = bufferIO({ stdoutIsTTY: true });
    await writeList(b.io, 'table', from([{ id: 'a', title: '\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e' }]), table);
    expect(b.stdout()).toBe('ID  TITLE\na   \\x1b]0;pwned\\x07\\x1b[2J\\u009b31m\\u202e\n');
  });
});

/** A stdout that takes a while per chunk and keeps a tiny buffer, as a slow pipe would. */
function slowIO(highWaterMark = 64): { io: IO; written: () => number; maxBuffered: () => number; writes: () => number; sink: Writable } {
  let written = 0;
  let maxBuffered = 0;
  let writes = 0;
  const sink = new Writable({
    highWaterMark,
    write(chunk: Buffer, _enc, callback) {
      written += chunk.toString().split('\n').length - 1;
      setImmediate(callback);
    },
  });
  const origWrite = sink.write.bind(sink);
  sink.write = ((chunk: string) => {
    const ok = origWrite(chunk);
    writes++;
    maxBuffered = Math.max(maxBuffered, sink.writableLength);
    return ok;
  }) as typeof sink.write;
  const io = { ...bufferIO().io, stdout: sink };
  return { io, written: () => written, maxBuffered: () => maxBuffered, writes: () => writes, sink };
}

describe('backpressure', () => {
  test('waits for drain, so 100,000 items never pile up in memory', async () => {
    // process.stdout's high-water mark: 16 KiB.
    const { io, written, maxBuffered, writes } = slowIO(16 * 1024);
    let produced = 0;
    let maxAhead = 0;
    async function* many(): AsyncGenerator<{ id: string; title: string }> {
      for (let i = 0; i < 100_000; i++) {
        maxAhead = Math.max(maxAhead, produced - written());
        produced++;
        yield { id: `rec_${i}`, title: 'a recording title of a fair length' };
      }
    }
    const count = await writeList(io, 'ndjson', many(), { columns: [], color: false });
    expect(count).toBe(100_000);
    // Without awaiting 'drain' all 100,000 lines would sit in the stream's buffer at once.
    // Lines of about 60 bytes are gathered into writes of about 16 KiB (some 280 lines each):
    // few writes, and never much more than one of them waiting.
    expect(writes()).toBeLessThan(100_000 / 200);
    expect(maxAhead).toBeLessThan(2 * 300);
    expect(maxBuffered()).toBeLessThan(17 * 1024);
  });

  test('stops with an error instead of hanging when stdout closes midway', async () => {
    const { io, sink } = slowIO();
    async function* endless(): AsyncGenerator<{ id: string; title: string }> {
      for (let i = 0; ; i++) {
        if (i === 50) sink.destroy();
        yield { id: `rec_${i}`, title: 'x' };
      }
    }
    await expect(writeList(io, 'ndjson', endless(), table)).rejects.toMatchObject({ code: 'EPIPE' });
  });
});

describe('writeResource', () => {
  const value = { id: 'rec_1', title: 'T\u202e', client: null };
  const view = {
    color: false,
    sections: (v: typeof value) => [
      {
        rows: [
          { label: 'ID', value: v.id },
          { label: 'Title', value: v.title },
          { label: 'Client', value: v.client },
        ],
      },
    ],
  };

  test('prints the object as indented JSON', async () => {
    const b = bufferIO();
    await writeResource(b.io, 'json', value, view);
    expect(b.stdout()).toBe('{\n  "id": "rec_1",\n  "title": "T\\u202e",\n  "client": null\n}\n');
  });

  test('prints the object on one line for ndjson', async () => {
    const b = bufferIO();
    await writeResource(b.io, 'ndjson', value, view);
    expect(b.stdout()).toBe('{"id":"rec_1","title":"T\\u202e","client":null}\n');
  });

  test('prints the key/value view for table, sanitised', async () => {
    const b = bufferIO({ stdoutIsTTY: true });
    await writeResource(b.io, 'table', value, view);
    expect(b.stdout()).toBe('ID      rec_1\nTitle   T\\u202e\nClient  -\n');
  });
});
