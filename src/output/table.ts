// Tables for lists and key/value views for one resource, in the borderless style of gh: columns
// separated by two spaces, no box drawing, so that a narrow terminal that wraps lines still
// shows something readable and `grep`/`awk` on a terminal capture still work.
import { Chalk } from 'chalk';
import stringWidth from 'string-width';
import { sanitize } from '../core/sanitize.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | null | undefined;
  /** Cells longer than this are cut with `…` even when the terminal is wide. */
  maxWidth?: number;
  /** Shrinks (cut with `…`) when the table is wider than the terminal; other columns never do. */
  flex?: boolean;
  align?: 'left' | 'right';
  /**
   * Columns with a drop order are left out, lowest first, while the table cannot fit the
   * terminal even with every flexible column at its minimum: a readable TITLE in 80 columns
   * is worth more than three names cut to "A…". json output always has every field.
   */
  dropOrder?: number;
}

export interface TableOptions {
  color: boolean;
  /** Terminal width in columns; 80 when unknown (0 or less). */
  width: number;
}

const GAP = 2;
/** A flexible column is not cut below this (or its header, or its content if shorter). */
const MIN_FLEX_WIDTH = 10;

/** Terminal cells taken by text (ANSI codes count for nothing): the one measure of every table. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Cut to at most `width` cells, ending in `…` when anything was cut; never splits a character. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  // By grapheme cluster: an emoji sequence or a letter with its accents is kept or cut whole.
  for (const { segment } of graphemes.segment(text)) {
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

/** A list as aligned columns fitted to `o.width`; every cell sanitised. Ends with a newline. */
export function renderTable<T>(allColumns: readonly Column<T>[], rows: Iterable<T>, o: TableOptions): string {
  const width = o.width > 0 ? o.width : 80;
  const allCells: string[][] = [];
  for (const row of rows) allCells.push(allColumns.map((c) => cellText(c.value(row))));

  const natural = allColumns.map((c, i) => {
    let w = displayWidth(sanitize(c.header));
    for (const line of allCells) w = Math.max(w, displayWidth(line[i] ?? ''));
    const capped = c.maxWidth !== undefined ? Math.min(w, c.maxWidth) : w;
    return Math.max(capped, displayWidth(sanitize(c.header)));
  });
  const minimum = (i: number): number => {
    const c = allColumns[i];
    const w = natural[i] ?? 0;
    return c?.flex ? Math.min(w, Math.max(displayWidth(sanitize(c.header)), MIN_FLEX_WIDTH)) : w;
  };
  let kept = allColumns.map((_, i) => i);
  const fits = (): boolean => kept.reduce((sum, i) => sum + minimum(i), 0) + GAP * Math.max(0, kept.length - 1) <= width;
  const droppable = allColumns
    .map((c, i) => ({ i, order: c.dropOrder }))
    .filter((d): d is { i: number; order: number } => d.order !== undefined)
    .sort((a, b) => a.order - b.order);
  for (const d of droppable) {
    if (fits()) break;
    kept = kept.filter((i) => i !== d.i);
  }

  const columns = kept.map((i) => allColumns[i] as Column<T>);
  const cells = allCells.map((line) => kept.map((i) => line[i] ?? ''));
  const headers = columns.map((c) => sanitize(c.header));
  const widths = kept.map((i) => natural[i] ?? 0);
  const total = widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, columns.length - 1);
  if (total > width) {
    const mins = kept.map(minimum);
    const flexible = columns.flatMap((c, i) => (c.flex ? [i] : []));
    shrink(widths, mins, flexible, total - width);
  }

  // Laid out here rather than by a table library, so that the cells are padded with the same
  // measure that fitted them (cli-table3 measured with its own, older string-width).
  const chalk = new Chalk({ level: o.color ? 1 : 0 });
  const head = headers.map((h, i) => truncate(h, widths[i] ?? 0));
  const body = cells.map((line) => line.map((cell, i) => truncate(cell, widths[i] ?? 0)));
  const used = head.map((h, i) => body.reduce((w, line) => Math.max(w, displayWidth(line[i] ?? '')), displayWidth(h)));
  const render = (line: string[], style: (text: string) => string = (t) => t): string =>
    line
      .map((cell, i) => pad(style(cell), used[i] ?? 0, columns[i]?.align ?? 'left'))
      .join(' '.repeat(GAP))
      .trimEnd();
  return `${[render(head, (h) => chalk.bold(h)), ...body.map((line) => render(line))].join('\n')}\n`;
}

export type KeyValueRow =
  /** One `label  value` line; objects are shown as compact JSON, null as `-`. */
  | { label: string; value: unknown }
  /** A multi-line text block under its label, indented; `missing` when the text is null. */
  | { label: string; text: string | null | undefined; missing?: string };

export interface KeyValueSection {
  heading?: string;
  rows: readonly KeyValueRow[];
  /** Shown when `rows` is empty; default `(none)`. */
  empty?: string;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return sanitize(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length ? sanitize(value.join(', ')) : '-';
  // JSON.stringify escapes C0 controls; sanitize catches DEL, C1 and bidi controls it leaves raw.
  return sanitize(JSON.stringify(value) ?? String(value));
}

/** One resource as labelled lines, in sections with headings; text blocks indented under their label. */
export function renderKeyValue(sections: readonly KeyValueSection[], o: { color: boolean }): string {
  const chalk = new Chalk({ level: o.color ? 1 : 0 });
  const out: string[] = [];
  sections.forEach((section, n) => {
    if (n > 0) out.push('');
    const indent = section.heading === undefined ? '' : '  ';
    if (section.heading !== undefined) out.push(chalk.bold(sanitize(section.heading)));
    if (section.rows.length === 0) {
      out.push(`${indent}${sanitize(section.empty ?? '(none)')}`);
      return;
    }
    const labelWidth = Math.max(0, ...section.rows.filter((r) => 'value' in r).map((r) => displayWidth(sanitize(r.label))));
    for (const row of section.rows) {
      const label = sanitize(row.label);
      if ('value' in row) {
        out.push(`${indent}${label}${' '.repeat(labelWidth - displayWidth(label) + GAP)}${scalarText(row.value)}`.trimEnd());
        continue;
      }
      // An empty label puts the text straight under the heading (e.g. the transcript).
      const textIndent = label === '' ? indent : `${indent}  `;
      if (label !== '') out.push(`${indent}${label}`);
      if (row.text === null || row.text === undefined) {
        out.push(`${textIndent}${sanitize(row.missing ?? '-')}`);
        continue;
      }
      const text = sanitize(row.text, { multiline: true }).replace(/\n+$/, '');
      if (text === '') continue;
      for (const line of text.split('\n')) out.push(line.trim() === '' ? '' : `${textIndent}${line.trimEnd()}`);
    }
  });
  return `${out.join('\n')}\n`;
}
