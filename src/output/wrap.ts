// Long text word-wrapped to the terminal's width with its indent kept (cli.md, Output), so a
// paragraph is never cut mid-word by the terminal and never runs back to column one.
import { clusters, displayWidth } from './table.js';

/** One word with how it is shown (bold, dim…); its width is that of `text`. */
export interface Word {
  text: string;
  style?: (text: string) => string;
  /** Part of the word before it, with no space between (a mark that starts mid-word, or before punctuation). */
  glued?: boolean;
}

const SPACE = /\s+/;

/** The words of already sanitised text, all in one style. */
export function words(text: string, style?: (text: string) => string): Word[] {
  return text
    .split(SPACE)
    .filter((w) => w !== '')
    .map((w) => (style ? { text: w, style } : { text: w }));
}

/** A word wider than `room` in pieces of at most `room` cells, never splitting a character. */
function split(word: Word, room: number): Word[] {
  const out: Word[] = [];
  let piece = '';
  for (const c of clusters(word.text)) {
    if (piece !== '' && displayWidth(piece + c) > room) {
      out.push({ ...word, text: piece });
      piece = '';
    }
    piece += c;
  }
  if (piece !== '') out.push({ ...word, text: piece });
  return out;
}

/**
 * Words laid out in lines of at most `width` cells: the first line starts with `first`, the
 * others with `rest` (a hanging indent: list items continue under their text, not their bullet).
 * Infinity keeps each paragraph on one line. A word wider than a line is cut in pieces, or with
 * `whole` put on a line of its own as it is (a cursor or a URL to copy: the terminal's own soft
 * wrap keeps it one piece when selected).
 */
export function wrapWords(
  list: readonly Word[],
  width: number,
  first: string,
  rest: string = first,
  o: { whole?: boolean } = {},
): string[] {
  const lines: string[] = [];
  let prefix = first;
  let line = '';
  let used = 0;
  const flush = (): void => {
    lines.push(`${prefix}${line}`.trimEnd());
    prefix = rest;
    line = '';
    used = 0;
  };
  const available = (lead: string): number => width - displayWidth(lead);
  const put = (shown: string, cells: number): void => {
    if (used > 0 && used + 1 + cells > Math.max(10, available(prefix))) flush();
    line += used > 0 ? ` ${shown}` : shown;
    used += (used > 0 ? 1 : 0) + cells;
  };
  const render = (piece: Word): string => (piece.style ? piece.style(piece.text) : piece.text);
  // A glued word joins the one before it: the two are laid out, and wrapped, as one word.
  const groups: Word[][] = [];
  for (const word of list) {
    const last = groups.at(-1);
    if (word.glued && last) last.push(word);
    else groups.push([word]);
  }
  for (const group of groups) {
    // Never less than 10 cells of text a line, however deep the indent.
    const room = Math.max(10, available(prefix));
    const w = group.reduce((sum, word) => sum + displayWidth(word.text), 0);
    if (w <= room || o.whole === true) {
      put(group.map(render).join(''), w);
      continue;
    }
    // Wider than a line: in pieces, each part of the word on its own.
    for (const word of group) for (const piece of split(word, room)) put(render(piece), displayWidth(piece.text));
  }
  if (line !== '' || lines.length === 0) flush();
  return lines;
}

const MARKER = /^(\s*)((?:[-*\u2022]|\d{1,4}[.)])\s+)/;

/**
 * Sanitised multi-line text (a transcript, a block's plain text), each line wrapped under
 * `indent`; a line that starts like a list item continues under its text. Blank lines stay.
 */
export function wrapText(text: string, width: number, indent: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') {
      out.push('');
      continue;
    }
    const marker = MARKER.exec(raw);
    const lead = raw.match(/^\s*/)?.[0] ?? '';
    const hang = marker ? ' '.repeat(displayWidth(marker[1] ?? '') + displayWidth(marker[2] ?? '')) : lead;
    out.push(...wrapWords(words(raw), width, `${indent}${lead}`, `${indent}${hang}`));
  }
  return out;
}
