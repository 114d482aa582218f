// Table layout rules of cli.md, Output: whole off a terminal,
// COLUMNS caps it, whole columns dropped by priority before a value is cut below its minimum,
// the width read again for every page, and rows written as pages arrive.
import { describe, expect, test } from 'vitest';
import { paged } from '../../src/api/paginate.js';
import { writeList } from '../../src/output/list-writer.js';
import { type Column, TableStream, tableWidth } from '../../src/output/table.js';
import { formatBytes, formatDuration } from '../../src/output/units.js';
import { wrapText } from '../../src/output/wrap.js';
import { bufferIO } from '../helpers/io.js';

interface Row {
  id: string;
  title: string;
  status: string;
  author: string;
  matter: string;
}

const columns: Column<Row>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'TITLE', value: (r) => r.title, flex: true, minWidth: 20 },
  { header: 'STATUS', value: (r) => r.status, dropOrder: 3 },
  { header: 'AUTHOR', value: (r) => r.author, flex: true, dropOrder: 2 },
  { header: 'MATTER', value: (r) => r.matter, flex: true, dropOrder: 1 },
];

const row: Row = {
  id: 'rec_01',
  title: 'Quarterly review with the client about the renewal of the agreement',
  status: 'COMPLETED',
  author: 'Ada Lovelace',
  matter: 'Master services agreement renewal',
};

describe('tableWidth (item 1)', () => {
  test('a terminal gives its width; off a terminal there is no limit unless COLUMNS caps it', () => {
    expect(tableWidth(bufferIO({ stdoutIsTTY: true, columns: 120 }).io)).toBe(120);
    expect(tableWidth(bufferIO({ stdoutIsTTY: false, columns: 80 }).io)).toBe(Number.POSITIVE_INFINITY);
    expect(tableWidth(bufferIO({ stdoutIsTTY: false, env: { COLUMNS: '100' } }).io)).toBe(100);
  });

  test('-o table into a pipe has every column and whole values', async () => {
    const b = bufferIO({ stdoutIsTTY: false, columns: 80 });
    await writeList(b.io, 'table', [row], { columns, color: false });
    expect(b.stdout()).toBe(
      'ID      TITLE                                                                STATUS     AUTHOR        MATTER\n' +
        'rec_01  Quarterly review with the client about the renewal of the agreement  COMPLETED  Ada Lovelace  Master services agreement renewal\n',
    );
  });
});

describe('dropping and cutting (item 2)', () => {
  const render = (width: number): string => new TableStream(columns, { color: false, width: () => width }).page([row]);

  test('drops whole columns, least important first, before cutting TITLE below its minimum', () => {
    // MATTER goes; TITLE (at least 20 cells) and AUTHOR (at least 10) share what is left.
    expect(render(60)).toBe(
      'ID      TITLE                        STATUS     AUTHOR\nrec_01  Quarterly review with the …  COMPLETED  Ada Lovelace\n',
    );
    expect(render(40)).toBe(`ID      ${'TITLE'.padEnd(21)}  STATUS\nrec_01  Quarterly review wit…  COMPLETED\n`);
    expect(render(30)).toBe(`ID      TITLE\nrec_01  Quarterly review with…\n`);
  });

  test('uses the whole width when there is room: no cap on a value', () => {
    const wide = render(200);
    expect(wide).toContain(row.title);
    expect(wide).toContain(row.matter);
    expect(wide).not.toContain('…');
  });

  test('never wraps a header mid-word: every line fits the width', () => {
    for (const width of [30, 45, 60, 80, 100, 120]) {
      for (const line of render(width).trimEnd().split('\n')) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
    }
  });
});

describe('pages (items 2 and 4)', () => {
  test('reads the width again for every page, printing the header again only when the columns change', () => {
    let width = 200;
    const stream = new TableStream(columns, { color: false, width: () => width });
    const first = stream.page([row]);
    expect(first.split('\n')[0]).toBe(
      'ID      TITLE                                                                STATUS     AUTHOR        MATTER',
    );
    expect(stream.page([{ ...row, id: 'rec_02' }]).split('\n')[0]).toMatch(/^rec_02 /);
    width = 60;
    expect(stream.page([{ ...row, id: 'rec_03' }])).toBe(
      'ID      TITLE                        STATUS     AUTHOR\nrec_03  Quarterly review with the …  COMPLETED  Ada Lovelace\n',
    );
  });

  test('writes each page of a table as it arrives, before the next one is fetched', async () => {
    const b = bufferIO({ stdoutIsTTY: true, columns: 200 });
    const seen: string[] = [];
    async function* twoPages(): AsyncGenerator<Row> {
      yield row;
      yield { ...row, id: 'rec_02' };
      await new Promise((r) => setTimeout(r, 5));
      seen.push(b.stdout());
      yield { ...row, id: 'rec_03' };
    }
    await writeList(b.io, 'table', twoPages(), { columns, color: false });
    expect(seen[0]?.split('\n').map((l) => l.split(' ')[0])).toEqual(['ID', 'rec_01', 'rec_02', '']);
    expect(
      b
        .stdout()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual(['ID', 'rec_01', 'rec_02', 'rec_03', '']);
  });
});

describe('pages of a listing', () => {
  test('lays a listing out once per page it says it has, reading the width at each, even back to back', async () => {
    const b = bufferIO({ stdoutIsTTY: true, columns: 200 });
    async function* answers(): AsyncGenerator<readonly Row[]> {
      // A short ID and a long one on one page: laid out together, the short one is padded.
      yield [{ ...row, id: 'r1' }, row];
      // The terminal narrows, and the next page is already there: no wait in between.
      b.io.columns = 60;
      yield [{ ...row, id: 'rec_03' }];
    }
    expect(await writeList(b.io, 'table', paged(answers()), { columns, color: false })).toBe(3);
    const lines = b.stdout().split('\n');
    expect(lines.map((l) => l.slice(0, 8))).toEqual(['ID      ', 'r1      ', 'rec_01  ', 'ID      ', 'rec_03  ', '']);
    // The second page, at 60 columns, lost MATTER and had its header printed again.
    expect(lines[0]).toMatch(/MATTER$/);
    expect(lines[3]).toBe('ID      TITLE                        STATUS     AUTHOR');
  });

  test('stops the listing when stdout closes, so no more pages are fetched', async () => {
    const b = bufferIO({ stdoutIsTTY: true, columns: 80 });
    let fetched = 0;
    let stopped = false;
    async function* answers(): AsyncGenerator<readonly Row[]> {
      try {
        for (;;) {
          fetched += 1;
          if (fetched === 2) b.io.stdout.destroy();
          yield [row];
        }
      } finally {
        stopped = true;
      }
    }
    await expect(writeList(b.io, 'table', paged(answers()), { columns, color: false })).rejects.toMatchObject({ code: 'EPIPE' });
    expect(stopped).toBe(true);
    expect(fetched).toBe(2);
  });
});

describe('long text and units (item 7)', () => {
  test('wraps words to the width, keeping the indent, and list items under their text', () => {
    expect(wrapText('one two three four five six seven eight nine ten eleven\n\n- a bullet that goes on and on', 24, '  ')).toEqual([
      '  one two three four',
      '  five six seven eight',
      '  nine ten eleven',
      '',
      '  - a bullet that goes',
      '    on and on',
    ]);
  });

  test('durations and sizes in human units', () => {
    expect([formatDuration(518), formatDuration(45), formatDuration(3725), formatDuration(7200)]).toEqual([
      '8m 38s',
      '45s',
      '1h 2m 5s',
      '2h',
    ]);
    expect([formatBytes(8_302_968), formatBytes(512), formatBytes(2048), formatBytes(1_610_612_736)]).toEqual([
      '7.9 MB',
      '512 B',
      '2.0 KB',
      '1.5 GB',
    ]);
  });
});
