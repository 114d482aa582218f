// The content of a recording (transcript, note and document blocks) derived on demand from its
// contentSeed, so that 100 000 recordings cost no memory for text. The same seed always gives
// the same text, so a recording reads the same on every request and after a restart.
import { createHash } from 'node:crypto';
import type { RecordingStatus } from '../shared/schemas.js';
import type { People } from './generator.js';
import { Rng, mix32 } from './random.js';
import type { Recording } from './types.js';
import { ACTIONS, DOCUMENT_TEMPLATES, FIRST_NAMES, LAST_NAMES, NOTE_TEMPLATES, SENTENCES } from './words.js';

/** A node of the rich-text document (ProseMirror-style: doc, heading, paragraph, lists, text). */
export interface RichNode {
  type: string;
  attrs?: Record<string, number>;
  content?: RichNode[];
  text?: string;
  marks?: { type: string }[];
}

/** What every note or document block has, generated or given in --fixtures (types.ts, GivenBlock). */
export interface BlockHeader {
  id: string;
  templateName: string;
  templateId: string;
  schemaVersion: number;
  contentRevision: number;
  sortOrder: number;
  createdAt: number;
}

export interface BlockMeta extends BlockHeader {
  available: boolean;
  seed: number;
}

export const SCHEMA_VERSION = 1;
export const MAX_BLOCKS = 50; // api.md, Limits: notes and documents together

// Only a transcribed recording has content; earlier states have none yet.
const HAS_CONTENT: ReadonlySet<RecordingStatus> = new Set(['REVIEW_PENDING', 'COMPLETED', 'ARCHIVED']);

const TEMPLATE_IDS = new Map<string, string>(
  [...NOTE_TEMPLATES, ...DOCUMENT_TEMPLATES].map((name) => [name, `tpl_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`]),
);

export function blocksOf(rec: Recording): { notes: BlockMeta[]; documents: BlockMeta[] } {
  if (!HAS_CONTENT.has(rec.status)) return { notes: [], documents: [] };
  const rng = new Rng(mix32(rec.contentSeed, 0xb10c));
  // About one recording in a hundred has the most blocks the API allows.
  const full = rng.chance(0.01);
  const noteCount = full ? 30 : rng.int(1, 4);
  const documentCount = full ? MAX_BLOCKS - 30 : rng.int(0, 3);
  let n = 0;
  const make = (count: number, templates: readonly string[]): BlockMeta[] => {
    const list: BlockMeta[] = [];
    for (let i = 0; i < count; i++) {
      const seed = mix32(rec.contentSeed, ++n);
      const b = new Rng(seed);
      const templateName = b.pick(templates);
      list.push({
        id: `blk_${b.chars(16)}`,
        templateName,
        templateId: TEMPLATE_IDS.get(templateName) ?? 'tpl_unknown',
        schemaVersion: SCHEMA_VERSION,
        contentRevision: b.int(1, 3),
        sortOrder: i + 1,
        createdAt: rec.createdAt + b.int(300, 1200) * 1000 + i * 1000,
        available: !b.chance(0.06),
        seed,
      });
    }
    // The API does not promise array order: some recordings list blocks out of sortOrder.
    if (list.length > 1 && rng.chance(0.2)) list.reverse();
    return list;
  };
  return { notes: make(noteCount, NOTE_TEMPLATES), documents: make(documentCount, DOCUMENT_TEMPLATES) };
}

interface Context {
  rng: Rng;
  rec: Recording;
  people: People;
}

function clientName(ctx: Context): string {
  return ctx.people.clients[ctx.rec.clientIndex]?.name ?? 'the client';
}

function topic(ctx: Context): string {
  const matter = ctx.people.clients[ctx.rec.clientIndex]?.matters[ctx.rec.matterIndex];
  return matter ? matter.name.toLowerCase() : 'matter';
}

function personName(rng: Rng): string {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function dateText(ctx: Context): string {
  const d = new Date(ctx.rec.createdAt + ctx.rng.int(-20, 90) * 86_400_000);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function amount(rng: Rng): string {
  return `£${String(rng.int(4, 400) * 250).replace(/\B(?=(\d{3})+$)/g, ',')}`;
}

function fill(pattern: string, ctx: Context): string {
  return pattern.replace(/\{(client|topic|person|date|amount|days)\}/g, (_, slot: string) => {
    switch (slot) {
      case 'client':
        return clientName(ctx);
      case 'topic':
        return topic(ctx);
      case 'person':
        return personName(ctx.rng);
      case 'date':
        return dateText(ctx);
      case 'amount':
        return amount(ctx.rng);
      default:
        return String(ctx.rng.int(7, 120));
    }
  });
}

function sentences(ctx: Context, min: number, max: number): string {
  const out: string[] = [];
  for (let i = ctx.rng.int(min, max); i > 0; i--) out.push(fill(ctx.rng.pick(SENTENCES), ctx));
  return out.join(' ');
}

const text = (value: string, bold = false): RichNode =>
  bold ? { type: 'text', text: value, marks: [{ type: 'bold' }] } : { type: 'text', text: value };
const heading = (level: number, value: string): RichNode => ({ type: 'heading', attrs: { level }, content: [text(value)] });
const paragraph = (...parts: RichNode[]): RichNode => ({ type: 'paragraph', content: parts });
const list = (type: 'bulletList' | 'orderedList', items: string[]): RichNode => ({
  type,
  ...(type === 'orderedList' ? { attrs: { start: 1 } } : {}),
  content: items.map((item) => ({ type: 'listItem', content: [paragraph(text(item))] })),
});

function repeat(ctx: Context, min: number, max: number, make: () => string): string[] {
  const out: string[] = [];
  for (let i = ctx.rng.int(min, max); i > 0; i--) out.push(make());
  return out;
}

function templateBody(templateName: string, ctx: Context): RichNode[] {
  const { rng } = ctx;
  switch (templateName) {
    case 'Meeting summary':
      return [
        heading(2, 'Summary'),
        paragraph(text(sentences(ctx, 2, 3))),
        heading(3, 'Discussion'),
        paragraph(text('Key point: ', true), text(sentences(ctx, 2, 4))),
        heading(3, 'Next steps'),
        list(
          'bulletList',
          repeat(ctx, 2, 4, () => fill(rng.pick(ACTIONS), ctx)),
        ),
      ];
    case 'Action items':
      return [
        heading(2, 'Action items'),
        list(
          'orderedList',
          repeat(ctx, 3, 6, () => `${fill(rng.pick(ACTIONS), ctx)} (${personName(rng)}, by ${dateText(ctx)})`),
        ),
      ];
    case 'Key dates':
      return [
        heading(2, 'Key dates'),
        list(
          'bulletList',
          repeat(ctx, 2, 5, () => `${dateText(ctx)}: ${fill(rng.pick(ACTIONS), ctx).toLowerCase()}`),
        ),
      ];
    case 'Attendance note':
      return [
        heading(2, 'Attendance note'),
        paragraph(text('Attendees: ', true), text(repeat(ctx, 2, 4, () => personName(rng)).join(', '))),
        paragraph(text(sentences(ctx, 3, 5))),
      ];
    case 'Client letter draft':
      return [
        paragraph(text(`Dear ${personName(rng)},`)),
        ...repeat(ctx, 2, 3, () => sentences(ctx, 2, 4)).map((p) => paragraph(text(p))),
        paragraph(text('Yours sincerely,')),
        paragraph(text(ctx.people.authors[ctx.rec.authorIndex]?.name ?? 'The team')),
      ];
    case 'File note':
      return [heading(2, `File note: ${topic(ctx)}`), ...repeat(ctx, 1, 3, () => sentences(ctx, 2, 4)).map((p) => paragraph(text(p)))];
    default:
      return [
        paragraph(
          text(`Attending ${clientName(ctx)} regarding ${topic(ctx)}. ${sentences(ctx, 1, 2)} Time: ${rng.int(1, 30) / 10} hours.`),
        ),
      ];
  }
}

export function blockDocument(rec: Recording, people: People, block: BlockMeta): RichNode {
  const ctx: Context = { rng: new Rng(mix32(block.seed, 0xd0c)), rec, people };
  return { type: 'doc', content: templateBody(block.templateName, ctx) };
}

function inlineText(nodes: RichNode[] | undefined): string {
  return (nodes ?? []).map((n) => n.text ?? inlineText(n.content)).join('');
}

/** contentText: the document as plain text; blocks apart by a blank line, list items by lines. */
export function documentText(doc: RichNode): string {
  return (doc.content ?? [])
    .map((node) => {
      if (node.type === 'bulletList' || node.type === 'orderedList') {
        const start = node.attrs?.start ?? 1;
        return (node.content ?? [])
          .map(
            (item, i) =>
              `${node.type === 'orderedList' ? `${start + i}.` : '-'} ${(item.content ?? []).map((p) => inlineText(p.content)).join(' ')}`,
          )
          .join('\n');
      }
      return inlineText(node.content);
    })
    .join('\n\n');
}

export function transcriptOf(rec: Recording, people: People): string {
  if (!HAS_CONTENT.has(rec.status)) return '';
  const ctx: Context = { rng: new Rng(mix32(rec.contentSeed, 0x7a5c)), rec, people };
  const author = people.authors[rec.authorIndex]?.name ?? 'Speaker 1';
  const speakers = [author, personName(ctx.rng), personName(ctx.rng)];
  const paragraphs: string[] = [];
  for (let i = ctx.rng.int(3, 8); i > 0; i--) {
    const speaker = speakers[paragraphs.length % (ctx.rng.chance(0.3) ? 3 : 2)] ?? author;
    paragraphs.push(`${speaker}: ${sentences(ctx, 2, 5)}`);
  }
  return paragraphs.join('\n\n');
}
