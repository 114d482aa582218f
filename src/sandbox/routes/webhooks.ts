// POST/GET /webhooks, DELETE /webhooks/:id, GET /webhooks/deliveries and
// POST /webhooks/deliveries/:id/replay (api.md, Endpoints; shapes from sandbox.md).
import { DELIVERY_STATUSES, IdempotencyKey, WebhookCreateRequest } from '../../shared/schemas.js';
import { ProblemError, json, type Reply } from '../problem.js';
import { ID_PATTERNS } from '../contract.js';
import { enumParam, jsonBody, limitParam, parseQuery, patternParam } from '../request.js';
import type { Delivery as DeliveryAnswer, WebhookSubscription } from '../contract.js';
import type { Delivery, Subscription } from '../types.js';
import type { ApiContext, ApiRoute } from './route.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function deliveryView(d: Delivery): DeliveryAnswer {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    event: d.event,
    recordingId: d.recordingId,
    status: d.status,
    attempts: d.attempts,
    lastAttemptAt: isoOrNull(d.lastAttemptAt),
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    createdAt: iso(d.createdAt),
  };
}

/** A subscription as GET /webhooks lists it (POST /webhooks adds the secret: webhook-service.ts). */
export function subscriptionView(s: Subscription): WebhookSubscription {
  return { id: s.id, url: s.url, events: s.events, createdAt: iso(s.createdAt) };
}

async function createWebhook(ctx: ApiContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  // The body's media type first: a request that is not JSON at all is 415 whatever it carries.
  const input = jsonBody(ctx.headers['content-type'], ctx.body, WebhookCreateRequest);
  const key = ctx.headers['idempotency-key'];
  if (typeof key !== 'string' || !IdempotencyKey.safeParse(key).success) {
    throw new ProblemError('IDEMPOTENCY_KEY_REQUIRED', 'send an Idempotency-Key header: 8 to 255 letters, digits, or . _ : -');
  }
  return ctx.app.webhooks.create(ctx.workspace, key, input);
}

function listWebhooks(ctx: ApiContext): Reply {
  const { app, workspace } = ctx;
  const q = parseQuery(ctx.query, ['cursor', 'limit']);
  const limit = limitParam(q, 50, 50);
  const query = `webhooks|${workspace}`;
  const token = q.get('cursor');
  const after = token === undefined ? null : app.cursors.decode(token, query);
  if (token !== undefined && after === null)
    throw new ProblemError('INVALID_CURSOR', 'the cursor is malformed, expired, or belongs to another query');
  const page = app.webhooks.page(workspace, after, limit);
  const last = page.items[page.items.length - 1];
  return json(200, {
    data: page.items.map(subscriptionView),
    meta: {
      count: page.items.length,
      limit,
      hasMore: page.hasMore,
      nextCursor: page.hasMore && last ? app.cursors.encode(last, query) : null,
    },
  });
}

function deleteWebhook(ctx: ApiContext): Reply {
  parseQuery(ctx.query, []);
  ctx.app.webhooks.delete(ctx.workspace, ctx.params.id ?? '');
  return { status: 204 };
}

function listDeliveries(ctx: ApiContext): Reply {
  const q = parseQuery(ctx.query, ['status', 'subscriptionId', 'limit']);
  const status = enumParam(q, 'status', DELIVERY_STATUSES);
  const limit = limitParam(q, 50, 50);
  // The document's pattern for it (openapi.ts).
  const subscriptionId = patternParam(q, 'subscriptionId', ID_PATTERNS.webhook, 'wh_ followed by 1 to 64 letters or digits');
  const rows = ctx.app.webhooks.deliveries(ctx.workspace, { status, subscriptionId }, limit);
  return json(200, { data: rows.map(deliveryView), meta: { count: rows.length, limit } });
}

function replayDelivery(ctx: ApiContext): Reply {
  parseQuery(ctx.query, []);
  const d = ctx.app.webhooks.replay(ctx.workspace, ctx.params.id ?? '');
  return json(202, { data: deliveryView(d) });
}

export const webhookRoutes: ApiRoute[] = [
  { kind: 'api', method: 'POST', path: 'webhooks', scope: 'manage:webhooks', handle: createWebhook },
  { kind: 'api', method: 'GET', path: 'webhooks', scope: 'manage:webhooks', handle: listWebhooks },
  { kind: 'api', method: 'GET', path: 'webhooks/deliveries', scope: 'manage:webhooks', handle: listDeliveries },
  { kind: 'api', method: 'POST', path: 'webhooks/deliveries/:id/replay', scope: 'manage:webhooks', handle: replayDelivery },
  { kind: 'api', method: 'DELETE', path: 'webhooks/:id', scope: 'manage:webhooks', handle: deleteWebhook },
];
