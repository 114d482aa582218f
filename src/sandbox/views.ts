// What clients see: recordings as list items, details and webhook payload data, built from the
// compact records. List items are cached as UTF-8 JSON bytes (keyed by the record's version),
// so a busy list endpoint mostly concatenates buffers it already has, outside V8's heap.
// Each answer has the type of its schema in contract.ts, the one the OpenAPI document is made
// from: a field built here that the document does not promise does not compile.
import { recordingApiPath } from '../shared/delivery.js';
import { blockDocument, blocksOf, documentText, transcriptOf, type BlockHeader, type BlockMeta } from './content.js';
import type { ContentBlock, DetailBlock, Person, RecordingDetail, RecordingListItem, Reference, WebhookPayloadData } from './contract.js';
import type { People } from './generator.js';
import type { GivenBlock, Recording, WorkspaceId } from './types.js';

export type IncludeMode = 'none' | 'content' | 'contentJson';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Two generations: when the current one is full it becomes the previous one (approximate LRU). */
class JsonCache {
  private current = new Map<string, { version: number; json: Buffer }>();
  private previous = new Map<string, { version: number; json: Buffer }>();
  private bytes = 0;
  constructor(private readonly budgetBytes: number) {}

  get(key: string, version: number): Buffer | undefined {
    const hit = this.current.get(key) ?? this.previous.get(key);
    if (!hit || hit.version !== version) return undefined;
    return hit.json;
  }

  set(key: string, version: number, json: Buffer): void {
    if (this.bytes + json.length > this.budgetBytes) {
      this.previous = this.current;
      this.current = new Map();
      this.bytes = 0;
    }
    this.current.set(key, { version, json });
    this.bytes += json.length;
  }

  clear(): void {
    this.current.clear();
    this.previous.clear();
    this.bytes = 0;
  }
}

export class Views {
  // Enough for the first pages that pollers ask for again and again; a full walk of 100 000
  // recordings streams through it without holding on to much.
  private readonly cache = new JsonCache(4 * 1024 * 1024);

  constructor(private readonly peopleOf: (workspace: WorkspaceId) => People) {}

  /** A generated block with its content: text always, the rich-text document when asked. */
  private content(rec: Recording, people: People, b: BlockMeta, withJson: boolean): DetailBlock {
    const meta = blockMetaOf(b);
    if (!b.available) return { ...meta, contentText: null, contentStatus: 'unavailable' };
    const doc = blockDocument(rec, people, b);
    const block: DetailBlock = { ...meta, contentText: documentText(doc), contentStatus: 'available' };
    if (withJson) block.contentJson = { ...doc };
    return block;
  }

  private blocks(rec: Recording, people: People, include: IncludeMode): { notes: ContentBlock[]; documents: ContentBlock[] } {
    const given = rec.given;
    const generated = given?.notes === undefined || given.documents === undefined ? blocksOf(rec) : null;
    const serve = (givenList: GivenBlock[] | undefined, made: BlockMeta[]): ContentBlock[] =>
      givenList !== undefined
        ? givenList.map((b) => (include === 'none' ? blockMetaOf(b) : givenContent(b, include === 'contentJson')))
        : made.map((b) => (include === 'none' ? blockMetaOf(b) : this.content(rec, people, b, include === 'contentJson')));
    return { notes: serve(given?.notes, generated?.notes ?? []), documents: serve(given?.documents, generated?.documents ?? []) };
  }

  private detailBlocks(rec: Recording, people: People, withJson: boolean): { notes: DetailBlock[]; documents: DetailBlock[] } {
    const given = rec.given;
    const generated = given?.notes === undefined || given.documents === undefined ? blocksOf(rec) : null;
    const serve = (givenList: GivenBlock[] | undefined, made: BlockMeta[]): DetailBlock[] =>
      givenList !== undefined ? givenList.map((b) => givenContent(b, withJson)) : made.map((b) => this.content(rec, people, b, withJson));
    return { notes: serve(given?.notes, generated?.notes ?? []), documents: serve(given?.documents, generated?.documents ?? []) };
  }

  private refs(rec: Recording, people: People): { author: Person; client: Reference | null; matter: Reference | null } {
    const given = rec.given;
    const client = people.clients[rec.clientIndex];
    const matter = client?.matters[rec.matterIndex];
    const author = people.authors[rec.authorIndex] ?? people.authors[0];
    return {
      author: given?.author ?? (author ? { id: author.id, name: author.name, email: author.email } : UNKNOWN_AUTHOR),
      client:
        given?.client !== undefined
          ? given.client
          : client
            ? { id: client.id, name: client.name, referenceNumber: client.referenceNumber }
            : null,
      matter: given?.matter !== undefined ? given.matter : matter ? { ...matter } : null,
    };
  }

  listItem(rec: Recording, include: IncludeMode): RecordingListItem {
    const people = this.peopleOf(rec.workspace);
    const { notes, documents } = this.blocks(rec, people, include);
    const { author, client, matter } = this.refs(rec, people);
    return {
      id: rec.id,
      title: rec.title,
      status: rec.status,
      priority: rec.priority,
      audioDuration: rec.audioDuration,
      audioSize: rec.audioSize,
      notes,
      documents,
      author,
      client,
      matter,
      ...filingStamps(rec),
    };
  }

  listItemJson(rec: Recording, include: IncludeMode): Buffer {
    const key = `${include}:${rec.id}`;
    const cached = this.cache.get(key, rec.version);
    if (cached !== undefined) return cached;
    const json = Buffer.from(JSON.stringify(this.listItem(rec, include)), 'utf8');
    this.cache.set(key, rec.version, json);
    return json;
  }

  /** The detail always carries the transcript and the blocks' text; contentJson on request. */
  detail(rec: Recording, withJson: boolean): RecordingDetail {
    const people = this.peopleOf(rec.workspace);
    return {
      ...this.listItem(rec, 'none'),
      ...this.detailBlocks(rec, people, withJson),
      transcript: rec.given?.transcript ?? transcriptOf(rec, people),
    };
  }

  /** data of a recording.completed payload (api.md, Events, Payload shape). */
  webhookData(rec: Recording): WebhookPayloadData {
    const { author, client, matter } = this.refs(rec, this.peopleOf(rec.workspace));
    return {
      id: rec.id,
      title: rec.title,
      status: rec.status,
      priority: rec.priority,
      author,
      client,
      matter,
      ...filingStamps(rec),
      apiUrl: recordingApiPath(rec.id),
    };
  }

  clearCache(): void {
    this.cache.clear();
  }
}

/** A workspace always has authors; this only keeps the type whole. */
const UNKNOWN_AUTHOR: Person = { id: 'usr_unknown', name: 'Unknown', email: 'unknown@example.invalid' };

/** A block's fields before its content, generated or given (--fixtures) alike. */
function blockMetaOf(b: BlockHeader): Omit<DetailBlock, 'contentText' | 'contentStatus'> {
  return {
    id: b.id,
    templateName: b.templateName,
    templateId: b.templateId,
    schemaVersion: b.schemaVersion,
    contentRevision: b.contentRevision,
    sortOrder: b.sortOrder,
    createdAt: iso(b.createdAt),
  };
}

function givenContent(b: GivenBlock, withJson: boolean): DetailBlock {
  const meta = blockMetaOf(b);
  if (b.contentText === null) return { ...meta, contentText: null, contentStatus: 'unavailable' };
  const block: DetailBlock = { ...meta, contentText: b.contentText, contentStatus: 'available' };
  if (withJson && b.contentJson !== null) block.contentJson = b.contentJson;
  return block;
}

/** The times and filing count that list items, details and webhook payloads all carry. */
function filingStamps(rec: Recording): Pick<RecordingListItem, 'createdAt' | 'updatedAt' | 'lastSyncedAt' | 'syncCount'> {
  return {
    createdAt: iso(rec.createdAt),
    updatedAt: iso(rec.updatedAt),
    lastSyncedAt: rec.lastSyncedAt === null ? null : iso(rec.lastSyncedAt),
    syncCount: rec.syncCount,
  };
}
