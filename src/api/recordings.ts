// Typed calls for recordings and filings (api.md, Endpoints).
import { FilingResponse, RecordingList, RecordingResponse } from '../shared/answer-checks.generated.js';
import type { FilingRequest, FilingResponse as Filing, RecordingListItem } from '../shared/schemas.js';
import { listPage, type Paged, paginate } from './paginate.js';
import { apiPath, type ApiClient } from './types.js';

export interface ListRecordingsParams {
  status?: string;
  syncState?: string;
  updatedSince?: string;
  include?: string;
  limit?: number;
  cursor?: string;
  all: boolean;
  maxItems?: number;
  signal?: AbortSignal;
  onMore?: (cursor: string) => void;
  onCut?: () => void;
}

export function listRecordings(client: ApiClient, p: ListRecordingsParams): Paged<RecordingListItem> {
  return paginate(client, {
    path: '/recordings',
    query: { status: p.status, syncState: p.syncState, updatedSince: p.updatedSince, include: p.include, limit: p.limit },
    page: listPage('/recordings', RecordingList),
    cursor: p.cursor,
    all: p.all,
    maxItems: p.maxItems,
    signal: p.signal,
    onMore: p.onMore,
    onCut: p.onCut,
  });
}

/**
 * What an integration files (api.md, the recommended pattern): every COMPLETED recording not
 * filed yet, in the largest pages the API allows, as `sync` and its dry run both list it. Pages
 * come as they are read (the next one is asked for while this one is handled); with `maxItems`
 * no page is asked for beyond the one that holds the last item wanted.
 */
export function listUnsynced(client: ApiClient, o: { signal?: AbortSignal; maxItems?: number } = {}): Paged<RecordingListItem> {
  return listRecordings(client, {
    status: 'COMPLETED',
    syncState: 'unsynced',
    limit: 100,
    all: true,
    signal: o.signal,
    maxItems: o.maxItems,
  });
}

export async function getRecording(client: ApiClient, id: string, o: { include?: string; signal?: AbortSignal } = {}) {
  const response = await client.request({
    method: 'GET',
    path: apiPath('recordings', id),
    query: { include: o.include },
    schema: RecordingResponse,
    signal: o.signal,
  });
  return response.data.data;
}

export async function fileRecording(client: ApiClient, id: string, filing: FilingRequest, signal?: AbortSignal): Promise<Filing> {
  const response = await client.request({
    method: 'POST',
    path: apiPath('recordings', id, 'filings'),
    body: filing,
    schema: FilingResponse,
    signal,
  });
  return response.data;
}
