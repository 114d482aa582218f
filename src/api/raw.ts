// `rfs api --paginate`: any list of the API, walked with the same cursor pagination as the list
// commands (api/paginate.ts), with items kept exactly as the server sent them.
import { AnyList } from '../shared/answer-checks.generated.js';
import { listPage, type Paged, paginate } from './paginate.js';
import type { ApiClient } from './types.js';

/**
 * The `data` items of every page of `path` (checked by api/raw-path.ts, query included). A
 * `cursor` in that query is where the walk starts, not a parameter sent with every page.
 */
export function paginateRaw(client: ApiClient, path: string, signal?: AbortSignal): Paged<unknown> {
  const [base = '', search = ''] = path.split(/\?(.*)/s, 2);
  const params = new URLSearchParams(search);
  const cursor = params.get('cursor') ?? undefined;
  params.delete('cursor');
  const rest = params.toString();
  // The query as typed, unless a cursor had to be taken out of it.
  const start = cursor === undefined ? path : rest === '' ? base : `${base}?${rest}`;
  return paginate<unknown>(client, { path: start, query: {}, page: listPage(start, AnyList), cursor, all: true, signal });
}
