// One resource as labelled lines (the table view of `recordings get`, `file`, `auth login`…),
// in sections with headings; long values and text blocks are word-wrapped to the width with
// their indent kept, and rich text is shown with its structure (cli.md, Output).
import { Chalk } from 'chalk';
import { sanitize } from '../core/sanitize.js';
import { renderRichText } from './rich-text.js';
import { displayWidth } from './table.js';
import { words, wrapText, wrapWords } from './wrap.js';

export type KeyValueRow =
  /** One `label  value` line; objects are shown as compact JSON, null as `-`. */
  | { label: string; value: unknown }
  /**
   * A multi-line text block under its label, indented; `missing` when the text is null.
   * `rich` (a contentJson document) is shown instead of the text when it can be read;
   * `title` is a heading the label already says, left out of the rich text.
   */
  | { label: string; text: string | null | undefined; missing?: string; rich?: unknown; title?: string };

export interface KeyValueSection {
  heading?: string;
  rows: readonly KeyValueRow[];
  /** Shown when `rows` is empty; default `(none)`. */
  empty?: string;
}

export interface KeyValueOptions {
  color: boolean;
  /** Cells a line may take (the terminal's width); Infinity or absent: lines are not wrapped. */
  width?: number;
}

const GAP = 2;

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return sanitize(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length ? sanitize(value.join(', ')) : '-';
  // JSON.stringify escapes C0 controls; sanitize catches DEL, C1 and bidi controls it leaves raw.
  return sanitize(JSON.stringify(value) ?? String(value));
}

/** One resource as labelled lines, in sections with headings; text blocks indented under their label. */
export function renderKeyValue(sections: readonly KeyValueSection[], o: KeyValueOptions): string {
  const chalk = new Chalk({ level: o.color ? 1 : 0 });
  const width = o.width !== undefined && o.width > 0 ? o.width : Number.POSITIVE_INFINITY;
  const style = { bold: (t: string) => chalk.bold(t), italic: (t: string) => chalk.italic(t) };
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
        const first = `${indent}${label}${' '.repeat(labelWidth - displayWidth(label) + GAP)}`;
        const text = scalarText(row.value);
        if (displayWidth(first + text) <= width) {
          out.push(`${first}${text}`.trimEnd());
          continue;
        }
        // A long value (a title) continues under itself, not under its label.
        out.push(...wrapWords(words(text), width, first, ' '.repeat(displayWidth(first))));
        continue;
      }
      // An empty label puts the text straight under the heading (e.g. the transcript).
      const textIndent = label === '' ? indent : `${indent}  `;
      if (label !== '') out.push(`${indent}${label}`);
      if (row.text === null || row.text === undefined) {
        out.push(`${textIndent}${sanitize(row.missing ?? '-')}`);
        continue;
      }
      const rich = row.rich === undefined ? undefined : renderRichText(row.rich, { width, indent: textIndent, style, title: row.title });
      if (rich !== undefined) {
        out.push(...rich);
        continue;
      }
      const text = sanitize(row.text, { multiline: true }).replace(/\n+$/, '');
      if (text === '') continue;
      out.push(...wrapText(text, width, textIndent));
    }
  });
  return `${out.join('\n')}\n`;
}
