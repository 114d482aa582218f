// Tables for lists and key/value views for one resource, in the borderless style of gh: columns
// separated by two spaces, no box drawing, so that a narrow terminal that wraps lines still
// shows something readable and `grep`/`awk` on a terminal capture still work.
import { Chalk, type ChalkInstance } from 'chalk';
import stringWidth from 'string-width';
import type { IO } from '../core/io.js';
import { sanitize } from '../core/sanitize.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | null | undefined;
  /** Cells longer than this are cut with `…` even when the terminal is wide. */
  maxWidth?: number;
  /**
   * Shrinks (cut with `…`) when the table is wider than the terminal, down to `minWidth`
   * (default 10 cells, or the header); other columns are never cut: an id cut short cannot be pasted.
   */
  flex?: boolean;
  /** The readable minimum of a flexible column: below it, columns are dropped instead. */
  minWidth?: number;
  align?: 'left' | 'right';
  /**
   * The column's priority: columns with one are left out, lowest first, while the table cannot
   * fit the terminal even with every flexible column at its minimum. A readable TITLE in 80
   * columns is worth more than three names cut to "A…"; json output always has every field.
   */
  dropOrder?: number;
  /** Applied to the cell once it is laid out (colour): the width is that of the plain text. */
  style?: (cell: string, row: T) => string;
}

export interface TableOptions {
  color: boolean;
  /** Cells a line may take: the terminal's width, Infinity for whole values; 80 when 0 or less. */
  width: number;
  /** Headers of columns whose value the command's filter fixes: left out first (see `layoutColumns`). */
  fixed?: readonly string[];
}

const GAP = 2;
/** From this many cells a terminal is wide: it shows whole values before more columns (layoutColumns). */
const WIDE_TERMINAL = 160;
/** A flexible column is not cut below this (or its header, or its content if shorter). */
const MIN_FLEX_WIDTH = 10;

/**
 * The width a table may take on stdout (cli.md, Output): the terminal's, read again each time
 * (a resized window lays out the next page anew); off a terminal every column and whole values,
 * unless COLUMNS caps it.
 */
export function tableWidth(io: Pick<IO, 'stdoutIsTTY' | 'columns' | 'env'>): number {
  if (io.stdoutIsTTY) return io.columns > 0 ? io.columns : 80;
  const cap = Number(io.env.COLUMNS);
  return Number.isInteger(cap) && cap > 0 ? cap : Number.POSITIVE_INFINITY;
}

/** Terminal cells taken by text (ANSI codes count for nothing): the one measure of every table. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The grapheme clusters of `text`: an emoji sequence or a letter with its accents is one. */
export function clusters(text: string): string[] {
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** Cut to at most `width` cells, ending in `…` when anything was cut; never splits a character. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const segment of clusters(text)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` cells, on the right or (align right) on the left. */
export function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * Lowers the widest of `widths` (only at `indexes`, never below `mins`) until their sum drops
 * by `excess` or every one is at its minimum, so long columns give up space first.
 */
function shrink(widths: number[], mins: number[], indexes: number[], excess: number): number {
  let left = excess;
  while (left > 0) {
    let widest = -1;
    for (const i of indexes) {
      if ((widths[i] ?? 0) > (mins[i] ?? 0) && (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0))) widest = i;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    left--;
  }
  return left;
}

function cellText(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  return sanitize(String(value));
}

interface Layout {
  /** Indexes of the columns shown. */
  kept: number[];
  /** Width of each shown column, in the order of `kept`. */
  widths: number[];
}

/**
 * Which columns are shown and how wide, for `natural` widths (whole values) in `width` cells.
 * Only columns without a priority (TITLE) are cut, down to their minimum; when that is not
 * enough, whole columns are left out, lowest priority first, rather than cut: a name cut to
 * "Meridian Health Par…" is worth less than more of the title. Only when nothing more can go
 * are the remaining flexible columns cut to their minimums.
 */
function layoutColumns<T>(columns: readonly Column<T>[], natural: number[], width: number, fixed: readonly string[] = []): Layout {
  const minimum = (i: number): number => {
    const c = columns[i];
    const w = natural[i] ?? 0;
    if (!c?.flex) return w;
    return Math.min(w, Math.max(displayWidth(sanitize(c.header)), c.minWidth ?? MIN_FLEX_WIDTH));
  };
  const sum = (ws: number[]): number => ws.reduce((a, b) => a + b, 0) + GAP * Math.max(0, ws.length - 1);
  let kept = columns.map((_, i) => i);
  // A column whose value the filter fixes (STATUS of a list of COMPLETED recordings) says the
  // same on every row: when the whole table does not fit, it goes before anything is cut or
  // any column that tells rows apart is left out.
  if (fixed.length > 0 && sum(natural) > width) kept = kept.filter((i) => !fixed.includes(columns[i]?.header ?? ''));
  const droppable = columns
    .map((c, i) => ({ i, order: c.dropOrder }))
    .filter((d): d is { i: number; order: number } => d.order !== undefined && kept.includes(d.i))
    .sort((a, b) => a.order - b.order);
  const primary = (): number[] => kept.flatMap((i, n) => (columns[i]?.flex && columns[i]?.dropOrder === undefined ? [n] : []));
  for (const d of [...droppable, undefined]) {
    const widths = kept.map((i) => natural[i] ?? 0);
    const excess = sum(widths) - width;
    if (excess <= 0) return { kept, widths };
    const room = primary().reduce((r, n) => r + (widths[n] ?? 0) - minimum(kept[n] ?? 0), 0);
    // A wide terminal shows whole values (cli.md, Output): there, when leaving out the next
    // column of the documented order is enough for every value left to fit whole, that column
    // goes rather than a title being cut (200 columns: MATTER goes, the 72-character title stays
    // whole). Narrower, a cut title beside more columns is the better trade (README, Tables).
    if (width >= WIDE_TERMINAL && d !== undefined && excess <= room && excess <= (natural[d.i] ?? 0) + GAP) {
      kept = kept.filter((i) => i !== d.i);
      continue;
    }
    if (excess <= room || d === undefined) {
      const mins = kept.map(minimum);
      const left = shrink(widths, mins, primary(), excess);
      // Nothing more can go: the other flexible columns are cut too, as little as needed.
      if (left > 0)
        shrink(
          widths,
          mins,
          kept.flatMap((i, n) => (columns[i]?.flex ? [n] : [])),
          left,
        );
      return { kept, widths };
    }
    kept = kept.filter((i) => i !== d.i);
  }
  return { kept, widths: kept.map((i) => natural[i] ?? 0) };
}

export interface TableStreamOptions<T> {
  color: boolean;
  /** Read again for every page: a resized terminal lays out the next page anew. */
  width: () => number;
  /** A line under each row (e.g. a recording's note text), indented and cut to the width. */
  detail?: (row: T) => string | undefined;
  /** Headers of columns whose value the command's filter fixes: left out first. */
  fixed?: readonly string[];
  /**
   * Long text of the last column wrapped into lines of at most `width` cells instead of cut;
   * the lines after the first are indented to the column (a batch's DETAIL).
   */
  wrapLast?: (text: string, width: number) => string[];
}

/**
 * A table written page by page as a list streams in (cli.md, Output: `--all` never sits on a
 * blank screen). Each page is laid out for the width of that moment; a column keeps the width
 * it was given so far when it still fits, so pages line up, and the header is printed again
 * only when the set of columns changes.
 */
export class TableStream<T> {
  private shown: number[] = [];
  private keptKey: string | undefined;
  private readonly chalk: ChalkInstance;

  constructor(
    private readonly columns: readonly Column<T>[],
    private readonly o: TableStreamOptions<T>,
  ) {
    this.chalk = new Chalk({ level: o.color ? 1 : 0 });
  }

  /** The lines of one page (a header first when needed); empty for no rows. */
  page(rows: readonly T[]): string {
    if (rows.length === 0) return '';
    const raw = this.o.width();
    const width = raw > 0 ? raw : 80;
    const headers = this.columns.map((c) => sanitize(c.header));
    const cells = rows.map((row) => this.columns.map((c) => cellText(c.value(row))));
    const natural = this.columns.map((c, i) => {
      let w = displayWidth(headers[i] ?? '');
      for (const line of cells) w = Math.max(w, displayWidth(line[i] ?? ''));
      if (c.maxWidth !== undefined) w = Math.max(Math.min(w, c.maxWidth), displayWidth(headers[i] ?? ''));
      return Math.max(w, this.shown[i] ?? 0);
    });
    const { kept, widths } = layoutColumns(this.columns, natural, width, this.o.fixed);
    const head = kept.map((i, n) => truncate(headers[i] ?? '', widths[n] ?? 0));
    const lastShown = kept.length - 1;
    // With wrapLast the last column's text goes on under itself rather than being cut.
    const more: string[][] = [];
    const body = cells.map((line, r) =>
      kept.map((i, n) => {
        const text = line[i] ?? '';
        const wrap = this.o.wrapLast;
        if (n !== lastShown || wrap === undefined || displayWidth(text) <= (widths[n] ?? 0)) return truncate(text, widths[n] ?? 0);
        const [first = '', ...rest] = wrap(text, widths[n] ?? 0);
        more[r] = rest;
        return first;
      }),
    );
    // A column as wide as what it shows, so a short page does not pad to the widths it was allowed.
    const used = kept.map((i, n) =>
      Math.max(
        this.shown[i] !== undefined && this.shown[i] <= (widths[n] ?? 0) ? this.shown[i] : 0,
        body.reduce((w, line) => Math.max(w, displayWidth(line[n] ?? '')), displayWidth(head[n] ?? '')),
      ),
    );
    const render = (line: string[], style: (text: string, n: number) => string = (t) => t): string =>
      line
        .map((cell, n) => pad(style(cell, n), used[n] ?? 0, this.columns[kept[n] ?? 0]?.align ?? 'left'))
        .join(' '.repeat(GAP))
        .trimEnd();
    const indent = ' '.repeat(used.slice(0, lastShown).reduce((sum, w) => sum + w + GAP, 0));
    const out: string[] = [];
    const key = kept.join(',');
    if (key !== this.keptKey) out.push(render(head, (h) => this.chalk.bold(h)));
    this.keptKey = key;
    this.shown = [];
    kept.forEach((i, n) => {
      this.shown[i] = used[n] ?? 0;
    });
    rows.forEach((row, r) => {
      out.push(
        render(body[r] ?? [], (cell, n) => {
          const style = this.columns[kept[n] ?? 0]?.style;
          return style ? style(cell, row) : cell;
        }),
      );
      for (const line of more[r] ?? []) out.push(`${indent}${line}`.trimEnd());
      const detail = this.o.detail?.(row);
      if (detail !== undefined) {
        const text = sanitize(detail.replace(/\s+/g, ' ').trim());
        out.push(this.chalk.dim(`    ${truncate(text, width - 4)}`).trimEnd());
      }
    });
    return `${out.join('\n')}\n`;
  }
}

/** A list as aligned columns fitted to `o.width`; every cell sanitised. Ends with a newline. */
export function renderTable<T>(columns: readonly Column<T>[], rows: Iterable<T>, o: TableOptions): string {
  // Laid out here rather than by a table library, so that the cells are padded with the same
  // measure that fitted them (cli-table3 measured with its own, older string-width).
  return new TableStream(columns, { color: o.color, width: () => o.width, fixed: o.fixed }).page([...rows]);
}
