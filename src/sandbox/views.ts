// What clients see: recordings as list items, details and webhook payload data, built from the
// compact records. List items are cached as UTF-8 JSON bytes (keyed by the record's version),
// so a busy list endpoint mostly concatenates buffers it already has, outside V8's heap.
import { recordingApiPath } from '../shared/delivery.js';
import { blockDocument, blocksOf, documentText, transcriptOf, type BlockMeta } from './content.js';
import type { People } from './generator.js';
import type { Recording, WorkspaceId } from './types.js';

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

  private block(rec: Recording, people: People, b: BlockMeta, include: IncludeMode): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: b.id,
      templateName: b.templateName,
      templateId: b.templateId,
      schemaVersion: b.schemaVersion,
      contentRevision: b.contentRevision,
      sortOrder: b.sortOrder,
      createdAt: iso(b.createdAt),
    };
    if (include === 'none') return out;
    if (!b.available) {
      out.contentText = null;
      out.contentStatus = 'unavailable';
      return out;
    }
    const doc = blockDocument(rec, people, b);
    out.contentText = documentText(doc);
    out.contentStatus = 'available';
    if (include === 'contentJson') out.contentJson = doc;
    return out;
  }

  private refs(rec: Recording, people: People) {
    const client = people.clients[rec.clientIndex];
    const matter = client?.matters[rec.matterIndex];
    return {
      author: people.authors[rec.authorIndex] ?? null,
      client: client ? { id: client.id, name: client.name, referenceNumber: client.referenceNumber } : null,
      matter: matter ?? null,
    };
  }

  listItem(rec: Recording, include: IncludeMode): Record<string, unknown> {
    const people = this.peopleOf(rec.workspace);
    const { notes, documents } = blocksOf(rec);
    const { author, client, matter } = this.refs(rec, people);
    return {
      id: rec.id,
      title: rec.title,
      status: rec.status,
      priority: rec.priority,
      audioDuration: rec.audioDuration,
      audioSize: rec.audioSize,
      notes: notes.map((b) => this.block(rec, people, b, include)),
      documents: documents.map((b) => this.block(rec, people, b, include)),
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
  detail(rec: Recording, withJson: boolean): Record<string, unknown> {
    const item = this.listItem(rec, withJson ? 'contentJson' : 'content');
    item.transcript = transcriptOf(rec, this.peopleOf(rec.workspace));
    return item;
  }

  /** data of a recording.completed payload (api.md, Events, Payload shape). */
  webhookData(rec: Recording): Record<string, unknown> {
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

/** The times and filing count that list items, details and webhook payloads all carry. */
function filingStamps(rec: Recording): Record<string, unknown> {
  return {
    createdAt: iso(rec.createdAt),
    updatedAt: iso(rec.updatedAt),
    lastSyncedAt: rec.lastSyncedAt === null ? null : iso(rec.lastSyncedAt),
    syncCount: rec.syncCount,
  };
}
