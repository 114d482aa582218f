// --fixtures (sandbox.md, In an integrator's own tests): a start from a saved state (the format
// of --data and GET /_sandbox/state) or from a plain JSON list of recordings in the shape the API
// answers them (a recording's detail, or a list item with or without content), so real data can
// be saved with rfs and replayed. Either is checked whole before the sandbox starts, and a bad
// one is refused with the path of the bad field; a recording's fields are taken as given and
// what is left out is generated (fixtureRecording).
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { INSTANT, parseIsoTime } from '../shared/iso-time.js';
import { PRIORITIES, RECORDING_STATUSES } from '../shared/schemas.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../shared/json-depth.js';
import { MAX_BLOCKS, blockDocument, documentText, type RichNode } from './content.js';
import { Person, RecordingId, Reference } from './contract.js';
import type { People } from './generator.js';
import { MAX_STATE_DEPTH, TIME_BOUNDS, checkState, firstIssue, type StoredState } from './persistence.js';
import { Rng, mix32 } from './random.js';
import { StateFileError, readStateFile } from './state-file.js';
import { WORKSPACES, type GivenBlock, type Recording } from './types.js';

const TIME_WORDS = 'must be an ISO 8601 time with its zone, from year 0000 to 9999';
/** An ISO 8601 time as the API writes it, kept as milliseconds: what a year past 9999 cannot be. */
const Time = z.pipe(
  z.string(),
  z.transform((text, ctx) => {
    const ms = parseIsoTime(text, INSTANT);
    if (ms !== null && ms >= TIME_BOUNDS.min && ms <= TIME_BOUNDS.max) return ms;
    ctx.issues.push({ code: 'custom', message: TIME_WORDS, input: text });
    return z.NEVER;
  }),
);
const Whole = z.int().check(z.nonnegative());

/** A note or document block as the API answers it (with or without its content); all optional. */
const FixtureBlock = z
  .strictObject({
    id: z.optional(z.string().check(z.minLength(1))),
    templateName: z.optional(z.string()),
    templateId: z.optional(z.string()),
    schemaVersion: z.optional(Whole),
    contentRevision: z.optional(Whole),
    sortOrder: z.optional(Whole),
    createdAt: z.optional(Time),
    contentText: z.optional(z.nullable(z.string())),
    contentStatus: z.optional(z.enum(['available', 'unavailable'])),
    contentJson: z.optional(z.record(z.string(), z.unknown())),
  })
  .check(
    z.superRefine((b, ctx) => {
      const unavailable = b.contentStatus === 'unavailable';
      if (unavailable && typeof b.contentText === 'string')
        ctx.addIssue({
          code: 'custom',
          message: 'a block whose content is unavailable has contentText null',
          path: ['contentText'],
          input: b,
        });
      if (unavailable && b.contentJson !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: 'a block whose content is unavailable has no contentJson',
          path: ['contentJson'],
          input: b,
        });
      if (b.contentStatus === 'available' && b.contentText === null)
        ctx.addIssue({ code: 'custom', message: 'an available block has a contentText', path: ['contentText'], input: b });
    }),
  );
type FixtureBlock = z.infer<typeof FixtureBlock>;

/**
 * One recording of a plain list, in the shape api.md gives a recording's detail (what
 * `rfs recordings get -o json` prints, or an item of `rfs recordings list --include content`),
 * plus the sandbox's own `workspace`. Every field is optional and generated when left out.
 */
const FixtureRecording = z
  .strictObject({
    id: z.optional(RecordingId),
    workspace: z.optional(z.enum(WORKSPACES)),
    title: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
    status: z.optional(z.enum(RECORDING_STATUSES)),
    priority: z.optional(z.enum(PRIORITIES)),
    audioDuration: z.optional(Whole),
    audioSize: z.optional(Whole),
    notes: z.optional(z.array(FixtureBlock)),
    documents: z.optional(z.array(FixtureBlock)),
    author: z.optional(Person),
    client: z.optional(z.nullable(Reference)),
    matter: z.optional(z.nullable(Reference)),
    createdAt: z.optional(Time),
    updatedAt: z.optional(Time),
    lastSyncedAt: z.optional(z.nullable(Time)),
    syncCount: z.optional(Whole),
    transcript: z.optional(z.string()),
  })
  .check(
    z.superRefine((rec, ctx) => {
      const blocks = (rec.notes?.length ?? 0) + (rec.documents?.length ?? 0);
      if (blocks > MAX_BLOCKS)
        ctx.addIssue({
          code: 'custom',
          message: `notes and documents hold ${blocks} blocks; at most ${MAX_BLOCKS} together`,
          path: ['notes'],
          input: rec,
        });
    }),
  );
const FixtureList = z.array(FixtureRecording).check(
  z.superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((rec, i) => {
      if (rec.id === undefined) return;
      if (seen.has(rec.id)) ctx.addIssue({ code: 'custom', message: `the id ${rec.id} is given twice`, path: [i, 'id'], input: rec.id });
      seen.add(rec.id);
    });
  }),
);
export type FixtureRecording = z.input<typeof FixtureRecording>;
export type CheckedFixture = z.output<typeof FixtureRecording>;

export type Fixtures = { kind: 'state'; state: StoredState } | { kind: 'recordings'; recordings: CheckedFixture[] };

/** A value that is not a state or a list of recordings; `path` names the first bad field. */
export class FixtureError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
  }
}

/** One recording's detail on its own, as `rfs recordings get -o json` prints it: not a state. */
const isOneRecording = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !('format' in value) && typeof (value as { id?: unknown }).id === 'string';

/** A list is a list of recordings (a lone recording a list of one); anything else must be a whole state. */
export function checkFixtures(value: unknown): Fixtures {
  // What could never be saved or answered is refused before it is used.
  if (nestedDeeperThan(value, MAX_STATE_DEPTH))
    throw new FixtureError('', `the fixtures are nested more than ${MAX_STATE_DEPTH} levels deep`);
  if (Array.isArray(value) || isOneRecording(value)) {
    // A list answer wraps a recording one level deeper than a list does, two deeper than a lone
    // one: a contentJson any deeper would make answers that no client of the 256-level rule reads.
    const max = MAX_JSON_DEPTH - (Array.isArray(value) ? 1 : 2);
    if (nestedDeeperThan(value, max))
      throw new FixtureError(
        '',
        `the recordings are nested more than ${max} levels deep; their answers would be deeper than ${MAX_JSON_DEPTH}`,
      );
    const parsed = FixtureList.safeParse(Array.isArray(value) ? value : [value]);
    if (parsed.success) return { kind: 'recordings', recordings: parsed.data };
    const { path, message } = firstIssue(parsed.error);
    throw new FixtureError(Array.isArray(value) ? path : path.replace(/^\[0\]\.?/, ''), message);
  }
  const checked = checkState(value);
  if (!checked.ok) throw new FixtureError(checked.path, checked.message);
  return { kind: 'state', state: checked.state };
}

/** A fixtures file parsed, not yet checked (checkFixtures): bounded as every state file is read. */
export async function readFixtureFile(file: string): Promise<unknown> {
  const what = `the fixtures file ${file}`;
  let text: string;
  try {
    text = (await readStateFile(file, what)).toString('utf8');
  } catch (error) {
    if (!(error instanceof StateFileError)) throw error;
    throw new FixtureError('', error.message === 'not JSON' ? `${what} is not valid JSON` : error.message);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FixtureError('', `${what} is not valid JSON (${(error as Error).message})`);
  }
}

/** Text as blocks of paragraphs, for a block given with contentText and no contentJson. */
function textDocument(text: string): Record<string, unknown> {
  const paragraphs = text.split(/\n{2,}/).map((p) => ({ type: 'paragraph', content: p === '' ? [] : [{ type: 'text', text: p }] }));
  return { type: 'doc', content: paragraphs };
}

/** contentText of a given contentJson: the rich-text rule of content.ts when it has that shape. */
function jsonText(doc: Record<string, unknown>): string {
  try {
    return documentText(doc as unknown as RichNode);
  } catch {
    return '';
  }
}

/** A block with every field: what was given, the rest made from the recording's seed. */
function givenBlock(b: FixtureBlock, i: number, kind: 'note' | 'document', rec: Recording, people: People): GivenBlock {
  const seed = mix32(rec.contentSeed, (kind === 'note' ? 0x1000 : 0x2000) + i);
  const rng = new Rng(seed);
  const templateName = b.templateName ?? (kind === 'note' ? 'File note' : 'Client letter draft');
  const block: GivenBlock = {
    id: b.id ?? `blk_${rng.chars(16)}`,
    templateName,
    templateId: b.templateId ?? `tpl_${rng.chars(12)}`,
    schemaVersion: b.schemaVersion ?? 1,
    contentRevision: b.contentRevision ?? 1,
    sortOrder: b.sortOrder ?? i + 1,
    createdAt: b.createdAt ?? rec.createdAt,
    contentText: null,
    contentJson: null,
  };
  if (b.contentStatus === 'unavailable' || b.contentText === null) return block;
  if (b.contentText !== undefined || b.contentJson !== undefined) {
    block.contentText = b.contentText ?? jsonText(b.contentJson ?? {});
    block.contentJson = b.contentJson ?? textDocument(block.contentText);
    return block;
  }
  // Neither given (a list without include): made as a generated block's would be.
  const doc = blockDocument(rec, people, {
    ...block,
    available: true,
    seed,
  });
  block.contentText = documentText(doc);
  block.contentJson = { ...doc };
  return block;
}

/**
 * A recording of a fixture list: `made` is what the seed gives for its place (newRecording);
 * every field the fixture has replaces the made one.
 */
export function fixtureRecording(fixture: CheckedFixture, made: Recording, people: People): Recording {
  const createdAt = fixture.createdAt ?? made.createdAt;
  const lastSyncedAt =
    fixture.lastSyncedAt !== undefined ? fixture.lastSyncedAt : (fixture.syncCount ?? 0) > 0 ? (fixture.updatedAt ?? createdAt) : null;
  const rec: Recording = {
    ...made,
    title: fixture.title ?? made.title,
    status: fixture.status ?? made.status,
    priority: fixture.priority ?? made.priority,
    audioDuration: fixture.audioDuration ?? made.audioDuration,
    audioSize: fixture.audioSize ?? made.audioSize,
    createdAt,
    updatedAt: fixture.updatedAt ?? createdAt,
    lastSyncedAt,
    syncCount: fixture.syncCount ?? (lastSyncedAt === null ? 0 : 1),
  };
  const given: NonNullable<Recording['given']> = {};
  if (fixture.author !== undefined) given.author = fixture.author;
  if (fixture.client !== undefined) given.client = fixture.client;
  if (fixture.matter !== undefined) given.matter = fixture.matter;
  if (fixture.transcript !== undefined) given.transcript = fixture.transcript;
  if (fixture.notes !== undefined) given.notes = fixture.notes.map((b, i) => givenBlock(b, i, 'note', rec, people));
  if (fixture.documents !== undefined) given.documents = fixture.documents.map((b, i) => givenBlock(b, i, 'document', rec, people));
  if (Object.keys(given).length > 0) rec.given = given;
  return rec;
}
