// GET /recordings, GET /recordings/:id, POST /recordings/:id/filings (api.md, Endpoints).
import { checkFiling } from '../../shared/filing.js';
import { FilingRequest, INCLUDES, RECORDING_STATUSES, SYNC_STATES } from '../../shared/schemas.js';
import { ProblemError, invalid, json, notFound, type Reply } from '../problem.js';
import type { FilingResponse, RecordingResponse } from '../contract.js';
import { INSTANT, parseIsoTime } from '../../shared/iso-time.js';
import { enumParam, jsonBody, limitParam, parseQuery } from '../request.js';
import type { ApiContext, ApiRoute } from './route.js';

const DATA_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
const LIST_PARAMS = ['status', 'syncState', 'updatedSince', 'cursor', 'include', 'limit'] as const;

function listRecordings(ctx: ApiContext): Reply {
  const { app, workspace } = ctx;
  const q = parseQuery(ctx.query, LIST_PARAMS);
  const status = enumParam(q, 'status', RECORDING_STATUSES) ?? 'COMPLETED';
  const syncState = enumParam(q, 'syncState', SYNC_STATES) ?? 'unsynced';
  const include = enumParam(q, 'include', INCLUDES) ?? 'none';
  const limit = limitParam(q, 100, 50);
  const since = q.get('updatedSince');
  const updatedSince = since === undefined ? null : parseIsoTime(since, INSTANT);
  if (updatedSince === null && since !== undefined)
    throw invalid('updatedSince must be an ISO 8601 timestamp with a time zone, e.g. 2025-06-01T00:00:00Z');

  // The cursor is bound to everything that decides which items a page holds.
  const query = `recordings|${workspace}|${status}|${syncState}|${updatedSince ?? ''}|${include}`;
  const token = q.get('cursor');
  const after = token === undefined ? null : app.cursors.decode(token, query);
  if (token !== undefined && after === null) {
    throw new ProblemError('INVALID_CURSOR', 'the cursor is malformed, expired, or belongs to another query; start again without it');
  }

  const page = app.recordings.page(workspace, { status, syncState, updatedSince }, after, limit);
  const last = page.items[page.items.length - 1];
  const meta = {
    count: page.items.length,
    limit,
    hasMore: page.hasMore,
    nextCursor: page.hasMore && last ? app.cursors.encode(last, query) : null,
  };
  const parts: Buffer[] = [DATA_OPEN];
  page.items.forEach((rec, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(app.views.listItemJson(rec, include));
  });
  parts.push(Buffer.from(`],"meta":${JSON.stringify(meta)}}`));
  return { status: 200, body: Buffer.concat(parts) };
}

function getRecording(ctx: ApiContext): Reply {
  const q = parseQuery(ctx.query, ['include']);
  const include = enumParam(q, 'include', INCLUDES);
  const rec = ctx.app.recordings.get(ctx.workspace, ctx.params.id ?? '');
  if (!rec) throw notFound('no such recording in this workspace');
  const answer: RecordingResponse = { data: ctx.app.views.detail(rec, include === 'contentJson') };
  return json(200, answer);
}

function fileRecording(ctx: ApiContext): Reply {
  parseQuery(ctx.query, []);
  const input = jsonBody(ctx.headers['content-type'], ctx.body, FilingRequest);
  // The rules beyond the shape, the same for rfs and the service (shared/filing.ts).
  const check = checkFiling(input, ctx.app.now());
  if ('problem' in check) throw invalid(check.problem);
  const { data, replayed } = ctx.app.file(ctx.workspace, ctx.params.id ?? '', input);
  const answer: FilingResponse = { data, meta: { replayed } };
  return json(200, answer);
}

export const recordingRoutes: ApiRoute[] = [
  { kind: 'api', method: 'GET', path: 'recordings', scope: 'read:recordings', handle: listRecordings },
  { kind: 'api', method: 'GET', path: 'recordings/:id', scope: 'read:recordings', handle: getRecording },
  { kind: 'api', method: 'POST', path: 'recordings/:id/filings', scope: 'write:recordings', handle: fileRecording },
];
