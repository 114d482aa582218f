// A block's rich-text `contentJson` shown with its structure (cli.md, Output): headings
// emphasised, list items bulleted or numbered, paragraphs word-wrapped under their indent. The
// document is ProseMirror-shaped (api.md calls it the canonical rich-text JSON): nodes with a
// `type`, `content` children, `text` and `marks` on text nodes, `attrs` (heading level, list
// start). Unknown node types are shown as their text, never dropped.
import { sanitize } from '../core/sanitize.js';
import { type Word, words, wrapWords } from './wrap.js';

interface Node {
  type?: unknown;
  attrs?: { level?: unknown; start?: unknown };
  content?: unknown;
  text?: unknown;
  marks?: unknown;
}

export interface RichStyle {
  bold: (text: string) => string;
  italic: (text: string) => string;
}

export interface RichOptions {
  width: number;
  indent: string;
  style: RichStyle;
  /** A first heading with this text is left out: the block's label already says it. */
  title?: string;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const children = (node: Node): Node[] => (Array.isArray(node.content) ? node.content.filter(isNode) : []);
const BLOCKS = new Set(['paragraph', 'heading', 'bulletList', 'orderedList', 'listItem', 'blockquote', 'codeBlock', 'horizontalRule']);

function hasMark(node: Node, mark: string): boolean {
  return Array.isArray(node.marks) && node.marks.some((m) => isNode(m) && m.type === mark);
}

/** The words of a node's inline content, each in the style of its marks. */
function inline(node: Node, style: RichStyle, strong = false): Word[] {
  if (typeof node.text === 'string') {
    const bold = strong || hasMark(node, 'bold') || hasMark(node, 'strong');
    const italic = hasMark(node, 'italic') || hasMark(node, 'em');
    const apply = bold || italic ? (t: string): string => (bold ? style.bold(italic ? style.italic(t) : t) : style.italic(t)) : undefined;
    return words(sanitize(node.text), apply);
  }
  const parts = children(node);
  return parts.flatMap((child, i) => {
    const out = inline(child, style, strong);
    // Nodes meet mid-word (`re` + italic `view`) or before punctuation (bold `client` + `.`):
    // no space is added where the note has none.
    const before = i > 0 ? plain(parts[i - 1] as Node) : '';
    const first = out[0];
    if (first && before !== '' && !/\s$/.test(before) && !/^\s/.test(plain(child))) out[0] = { ...first, glued: true };
    return out;
  });
}

function plain(node: Node): string {
  if (typeof node.text === 'string') return node.text;
  return children(node).map(plain).join('');
}

/** Lines of one block node at `indent` (first line `first`, continuation `rest`). */
function block(node: Node, o: RichOptions, first: string, rest: string): string[] {
  switch (node.type) {
    case 'heading': {
      const level = typeof node.attrs?.level === 'number' ? Math.min(6, Math.max(1, node.attrs.level)) : 1;
      // The marks say "heading" even without colour (NO_COLOR, a file), as Markdown does.
      const mark = { text: '#'.repeat(level), style: o.style.bold };
      return wrapWords([mark, ...inline(node, o.style, true)], o.width, first, rest);
    }
    case 'bulletList':
    case 'orderedList': {
      const items = children(node);
      const start = typeof node.attrs?.start === 'number' ? node.attrs.start : 1;
      const markers = items.map((_, i) => (node.type === 'orderedList' ? `${start + i}.` : '•'));
      const widest = Math.max(0, ...markers.map((m) => m.length));
      return items.flatMap((item, i) => {
        const marker = `${(markers[i] ?? '').padStart(node.type === 'orderedList' ? widest : 1)} `;
        const lead = i === 0 ? first : rest;
        return blocks(
          children(item).length > 0 ? children(item) : [item],
          o,
          `${lead}${marker}`,
          `${rest}${' '.repeat(marker.length)}`,
          false,
        );
      });
    }
    case 'blockquote':
      return blocks(children(node), o, `${first}│ `, `${rest}│ `, true);
    case 'codeBlock':
      return sanitize(plain(node), { multiline: true })
        .split('\n')
        .map((line, i) => `${i === 0 ? first : rest}${line}`.trimEnd());
    case 'horizontalRule':
      return [`${first}───`];
    default: {
      const kids = children(node);
      if (kids.length > 0 && kids.every((k) => typeof k.type === 'string' && BLOCKS.has(k.type))) return blocks(kids, o, first, rest, true);
      return wrapWords(inline(node, o.style), o.width, first, rest);
    }
  }
}

/** Several blocks: the first starts with `first`; top-level blocks are kept apart by a blank line. */
function blocks(nodes: Node[], o: RichOptions, first: string, rest: string, apart: boolean): string[] {
  const out: string[] = [];
  nodes.forEach((node, i) => {
    if (i > 0 && apart) out.push('');
    out.push(...block(node, o, i === 0 ? first : rest, rest));
  });
  return out;
}

/** The document's lines, or undefined when it is not a document this can read (show the plain text). */
export function renderRichText(doc: unknown, o: RichOptions): string[] | undefined {
  if (!isNode(doc) || !Array.isArray(doc.content)) return undefined;
  let nodes = children(doc);
  const head = nodes[0];
  if (head?.type === 'heading' && o.title !== undefined && plain(head).trim().toLowerCase() === o.title.trim().toLowerCase()) {
    nodes = nodes.slice(1);
  }
  if (nodes.length === 0) return [];
  return blocks(nodes, o, o.indent, o.indent, true);
}
