// GET /api/v1/openapi.json: the contract as a file (sandbox.md), served without a key like the
// health check, since it describes the API rather than a workspace's data. The document is built
// on the first request (../openapi.ts), not at start.
import type { Reply } from '../problem.js';
import { parseQuery } from '../request.js';
import type { PublicRoute, RequestContext } from './route.js';

async function openApi(ctx: RequestContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  const { openApiJson } = await import('../openapi.js');
  return { status: 200, body: openApiJson() };
}

export const openApiRoutes: PublicRoute[] = [{ kind: 'public', method: 'GET', path: 'openapi.json', handle: openApi }];
