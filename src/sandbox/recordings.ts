// The recordings of every workspace: lookup by id, keyset pages in (createdAt, id) order, status
// changes and filings. Everything here is synchronous, so one request's check and write can
// never interleave with another's.
import type { RecordingStatus, SyncState } from '../shared/schemas.js';
import type { Filing, FilingData, Recording, WorkspaceId } from './types.js';
import { WORKSPACES } from './types.js';
import { INSTANT, parseIsoTime } from '../shared/iso-time.js';

export interface RecordingFilter {
  status: RecordingStatus;
  syncState: SyncState;
  /** Keeps recordings with updatedAt ≥ this instant (ms); null for no filter. */
  updatedSince: number | null;
}

/** A keyset position: the (createdAt, id) of the last item of the previous page. */
export interface Position {
  createdAt: number;
  id: string;
}

export interface FilingInput {
  provider: string;
  externalId: string;
  externalUrl?: string | undefined;
  filedAt?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

function compare(a: Position, b: Position): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function matches(rec: Recording, filter: RecordingFilter): boolean {
  if (rec.status !== filter.status) return false;
  if (filter.syncState === 'unsynced' && rec.syncCount > 0) return false;
  if (filter.syncState === 'synced' && rec.syncCount === 0) return false;
  return filter.updatedSince === null || rec.updatedAt >= filter.updatedSince;
}

export class RecordingStore {
  private readonly byId = new Map<string, Recording>();
  private readonly ordered = new Map<WorkspaceId, Recording[]>();

  constructor(recordings: Iterable<Recording>) {
    for (const ws of WORKSPACES) this.ordered.set(ws, []);
    for (const rec of recordings) {
      this.byId.set(rec.id, rec);
      this.list(rec.workspace).push(rec);
    }
    for (const list of this.ordered.values()) list.sort(compare);
  }

  private list(workspace: WorkspaceId): Recording[] {
    return this.ordered.get(workspace) as Recording[];
  }

  /** A recording of that workspace; another workspace's recording does not exist for it. */
  get(workspace: WorkspaceId, id: string): Recording | undefined {
    const rec = this.byId.get(id);
    return rec?.workspace === workspace ? rec : undefined;
  }

  /** Any workspace: for the control API. */
  find(id: string): Recording | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  all(): IterableIterator<Recording> {
    return this.byId.values();
  }

  /** First index after `after`, by binary search: a cursor deep in 100 000 records costs log n. */
  private startIndex(list: Recording[], after: Position | null): number {
    if (after === null) return 0;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(list[mid] as Recording, after) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  page(workspace: WorkspaceId, filter: RecordingFilter, after: Position | null, limit: number): { items: Recording[]; hasMore: boolean } {
    const list = this.list(workspace);
    const items: Recording[] = [];
    for (let i = this.startIndex(list, after); i < list.length; i++) {
      const rec = list[i] as Recording;
      if (!matches(rec, filter)) continue;
      if (items.length === limit) return { items, hasMore: true };
      items.push(rec);
    }
    return { items, hasMore: false };
  }

  add(rec: Recording): void {
    const list = this.list(rec.workspace);
    list.splice(this.startIndex(list, rec), 0, rec);
    this.byId.set(rec.id, rec);
  }

  /** Sets the status; true when the recording has just become COMPLETED. */
  setStatus(rec: Recording, status: RecordingStatus, now: number): boolean {
    if (rec.status === status) return false;
    rec.status = status;
    rec.updatedAt = now;
    rec.version++;
    rec.changed = true;
    return status === 'COMPLETED';
  }

  /**
   * Files a COMPLETED recording. The same (provider, externalId) again answers the stored
   * filing and changes nothing; a new pair is a new filing. Status and updatedAt stay.
   */
  file(rec: Recording, input: FilingInput, now: number): { data: FilingData; replayed: boolean } {
    const previous = rec.filings?.find((f) => f.provider === input.provider && f.externalId === input.externalId);
    if (previous) return { data: previous.data, replayed: true };
    const lastSyncedAt = new Date(now).toISOString();
    const filedAt = input.filedAt === undefined ? lastSyncedAt : new Date(parseIsoTime(input.filedAt, INSTANT) ?? now).toISOString();
    const data: FilingData = {
      id: rec.id,
      lastSyncedAt,
      syncCount: rec.syncCount + 1,
      syncMetadata: {
        provider: input.provider,
        externalId: input.externalId,
        ...(input.externalUrl === undefined ? {} : { externalUrl: input.externalUrl }),
        filedAt,
        ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
      },
    };
    const filing: Filing = { provider: input.provider, externalId: input.externalId, data };
    rec.filings ??= [];
    rec.filings.push(filing);
    rec.syncCount = data.syncCount;
    rec.lastSyncedAt = now;
    rec.version++;
    rec.changed = true;
    return { data, replayed: false };
  }

  count(workspace: WorkspaceId): number {
    return this.list(workspace).length;
  }
}
