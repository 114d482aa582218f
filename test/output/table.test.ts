import stringWidth from 'string-width';
import { describe, expect, test } from 'vitest';
import { colorEnabled } from '../../src/core/io.js';
import { renderKeyValue } from '../../src/output/key-value.js';
import { type Column, displayWidth, renderTable, truncate } from '../../src/output/table.js';
import { formatLocalTime } from '../../src/output/time.js';
import { bufferIO } from '../helpers/io.js';

interface Row {
  id: string;
  title: string;
  status: string;
  priority: string;
  author: string;
  updatedAt: string;
}

const columns: Column<Row>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'TITLE', value: (r) => r.title, flex: true },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'PRIORITY', value: (r) => r.priority },
  { header: 'AUTHOR', value: (r) => r.author, flex: true },
  { header: 'UPDATED', value: (r) => formatLocalTime(r.updatedAt, { timeZone: 'UTC' }) },
];

const rows: Row[] = [
  {
    id: 'rec_01HZX3',
    title: 'Quarterly review with the client about the renewal of the master services agreement',
    status: 'COMPLETED',
    priority: 'HIGH',
    author: 'Ada Lovelace',
    updatedAt: '2026-11-22T14:05:00Z',
  },
  { id: 'rec_02', title: 'Short', status: 'DRAFT', priority: 'LOW', author: 'Bob', updatedAt: '2026-11-21T09:00:00Z' },
];

describe('renderTable', () => {
  test('fits 80 columns by cutting the long title with an ellipsis, borderless', () => {
    const text = renderTable(columns, rows, { color: false, width: 80 });
    expect(text).toBe(
      'ID          TITLE            STATUS     PRIORITY  AUTHOR        UPDATED\n' +
        'rec_01HZX3  Quarterly revi…  COMPLETED  HIGH      Ada Lovelace  2026-11-22 14:05\n' +
        'rec_02      Short            DRAFT      LOW       Bob           2026-11-21 09:00\n',
    );
    for (const line of text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(80);
  });

  test('shows every title in full when the terminal is wide enough', () => {
    const text = renderTable(columns, rows, { color: false, width: 200 });
    expect(text).toContain(rows[0]?.title);
    expect(text).not.toContain('…');
  });

  test('shrinks the widest flexible column first, then shares the cut', () => {
    const text = renderTable(columns, rows, { color: false, width: 60 });
    expect(text.split('\n')[1]).toBe('rec_01HZX3  Quarterly…  COMPLETED  HIGH      Ada Lovel…  2026-11-22 14:05');
  });

  test('never cuts a column that is not flexible, even in a narrow terminal', () => {
    const text = renderTable(columns, rows, { color: false, width: 30 });
    expect(text).toContain('rec_01HZX3');
    expect(text).toContain('COMPLETED');
    expect(text).toContain('2026-11-22 14:05');
  });

  test('cuts at maxWidth even when there is room, and right-aligns on request', () => {
    const cols: Column<{ a: string; n: number }>[] = [
      { header: 'A', value: (r) => r.a, maxWidth: 6 },
      { header: 'COUNT', value: (r) => r.n, align: 'right' },
    ];
    expect(
      renderTable(
        cols,
        [
          { a: 'abcdefghij', n: 7 },
          { a: 'xy', n: 1234 },
        ],
        { color: false, width: 80 },
      ),
    ).toBe('A       COUNT\nabcde…      7\nxy       1234\n');
  });

  test('neutralises escape sequences from server text in cells', () => {
    const evil: Row = {
      id: 'rec_3',
      title: 'x\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil',
      status: 'COMPLETED',
      priority: 'LOW',
      author: 'Eve\r',
      updatedAt: 'not a date\x1b[1A',
    };
    const text = renderTable(columns, [evil], { color: false, width: 200 });
    expect(text).toBe(
      'ID     TITLE                                        STATUS     PRIORITY  AUTHOR  UPDATED\n' +
        'rec_3  x\\x1b]0;pwned\\x07\\x1b[2J\\u009b31m\\u202eevil  COMPLETED  LOW       Eve\\r   not a date\\x1b[1A\n',
    );
    expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  });

  test('makes the header bold only with colour, and nothing else coloured', () => {
    const plain = renderTable(columns, rows, { color: false, width: 80 });
    const coloured = renderTable(columns, rows, { color: true, width: 80 });
    expect(plain).not.toContain('\x1b');
    expect(coloured.split('\n')[0]).toBe(
      '\x1b[1mID\x1b[22m          \x1b[1mTITLE\x1b[22m            \x1b[1mSTATUS\x1b[22m     \x1b[1mPRIORITY\x1b[22m  \x1b[1mAUTHOR\x1b[22m        \x1b[1mUPDATED\x1b[22m',
    );
    expect(coloured.split('\n').slice(1).join('\n')).toBe(plain.split('\n').slice(1).join('\n'));
  });

  test('follows the resolved colour: off with NO_COLOR or no terminal, on with FORCE_COLOR', () => {
    const render = (o: Parameters<typeof bufferIO>[0]): string =>
      renderTable(columns, rows, { color: colorEnabled(bufferIO(o).io, undefined), width: 80 });
    expect(render({ stdoutIsTTY: true })).toContain('\x1b[1m');
    expect(render({ stdoutIsTTY: true, env: { NO_COLOR: '' } })).not.toContain('\x1b');
    expect(render({ stdoutIsTTY: false })).not.toContain('\x1b');
    expect(render({ stdoutIsTTY: false, env: { FORCE_COLOR: '1' } })).toContain('\x1b[1m');
  });

  // The width a terminal gives a line is what string-width says; the table's own measure and
  // its layout must both agree with it, or rows starting with an emoji overflow the terminal.
  test('keeps every line of a 40-column table within 40 cells whatever the titles start with', () => {
    const titles = [
      '😀 Kick-off meeting with the new client about everything',
      '👩‍💻 Pairing session on the migration plan for next quarter',
      '🇩🇪 Berlin office review of the lease and the renewal terms',
      '☀️ Summer planning for the whole litigation team and partners',
      '日本語の会議メモ、契約更新についての長い議論と次のステップ',
      '한국어 회의록: 계약 갱신에 대한 긴 논의와 다음 단계',
      'e\u0301e\u0301e\u0301 re\u0301sume\u0301 of the combining accents in every word here',
      'Zalgo z\u0335\u0321\u0327a\u0336l\u0337g\u0338o text that keeps on going past the edge',
    ];
    const wide: Row[] = titles.map((title, n) => ({ ...(rows[1] as Row), id: `rec_${n}`, title, author: `${title.slice(0, 4)} Author` }));
    for (const color of [false, true]) {
      const text = renderTable(columns.slice(0, 3), wide, { color, width: 40 });
      for (const line of text.trimEnd().split('\n')) expect(stringWidth(line), JSON.stringify(line)).toBeLessThanOrEqual(40);
      // The columns line up: STATUS starts at the same cell on every line.
      const starts = text
        .trimEnd()
        .split('\n')
        .map((line) => stringWidth(line.replace(/(COMPLETED|DRAFT|STATUS).*$/, '')));
      expect(new Set(starts).size).toBe(1);
      // Flexible TITLE was cut, not left out.
      expect(text).toContain('…');
    }
  });

  test('counts wide characters as two cells and never splits a character', () => {
    expect(displayWidth('日本語')).toBe(6);
    expect(truncate('日本語テキスト', 7)).toBe('日本語…');
    expect(truncate('😀😀😀😀', 5)).toBe('😀😀…');
    expect(truncate('abc', 3)).toBe('abc');
  });
});

describe('renderKeyValue', () => {
  test('aligns labels, indents sections and text blocks, and marks missing values', () => {
    const text = renderKeyValue(
      [
        {
          rows: [
            { label: 'ID', value: 'rec_1' },
            { label: 'Sync count', value: 2 },
            { label: 'Client', value: null },
            { label: 'Events', value: ['a', 'b'] },
          ],
        },
        {
          heading: 'Notes',
          rows: [
            { label: 'Summary', text: 'line 1\r\nline 2\n\nline 4\n' },
            { label: 'Minutes', text: null, missing: 'content unavailable' },
          ],
        },
        { heading: 'Filing history', rows: [], empty: 'never filed' },
        { heading: 'Metadata', rows: [{ label: 'ref', value: { a: 1, b: 'x' } }] },
      ],
      { color: false },
    );
    expect(text).toBe(
      [
        'ID          rec_1',
        'Sync count  2',
        'Client      -',
        'Events      a, b',
        '',
        'Notes',
        '  Summary',
        '    line 1',
        '    line 2',
        '',
        '    line 4',
        '  Minutes',
        '    content unavailable',
        '',
        'Filing history',
        '  never filed',
        '',
        'Metadata',
        '  ref  {"a":1,"b":"x"}',
        '',
      ].join('\n'),
    );
  });

  test('neutralises escape sequences in values, labels, headings and text blocks', () => {
    const text = renderKeyValue(
      [
        {
          heading: 'Doc \u202e',
          rows: [
            { label: 'Title\x07', value: 'x\x1b]0;pwned\x07' },
            { label: 'Body', text: 'a\x1b[2J\nb\u009b31m\rc' },
          ],
        },
        { rows: [{ label: 'Meta', value: { k: 'v\u009b\x1b' } }] },
      ],
      { color: false },
    );
    expect(text).toBe(
      [
        'Doc \\u202e',
        '  Title\\x07  x\\x1b]0;pwned\\x07',
        '  Body',
        '    a\\x1b[2J',
        '    b\\u009b31m\\rc',
        '',
        'Meta  {"k":"v\\u009b\\u001b"}',
        '',
      ].join('\n'),
    );
  });

  test('makes headings bold only with colour', () => {
    const sections = [{ heading: 'Notes', rows: [{ label: 'a', value: 'b' }] }];
    expect(renderKeyValue(sections, { color: true })).toBe('\x1b[1mNotes\x1b[22m\n  a  b\n');
    expect(renderKeyValue(sections, { color: false })).toBe('Notes\n  a  b\n');
  });
});
