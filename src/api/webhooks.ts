// Typed calls for webhook subscriptions and deliveries (api.md; their shapes are mostly "not
// shown", so the schemas require little and keep every field the server sends).
import { DeliveryList, ReplayResponse, WebhookCreateResponse, WebhookList } from '../shared/answer-checks.generated.js';
import type { Delivery, WebhookSubscription } from '../shared/schemas.js';
import { listPage, type Paged, paginate } from './paginate.js';
import { apiPath, type ApiClient } from './types.js';

export async function createWebhook(
  client: ApiClient,
  body: { url: string; events: string[] },
  idempotencyKey: string,
  signal?: AbortSignal,
) {
  // The same key on every attempt (the client resends these headers unchanged), so a retry
  // after a lost answer returns the first subscription instead of making a second.
  const response = await client.request({
    method: 'POST',
    path: '/webhooks',
    body,
    headers: { 'Idempotency-Key': idempotencyKey },
    schema: WebhookCreateResponse,
    signal,
  });
  return response.data.data;
}

export function listWebhooks(
  client: ApiClient,
  p: { limit?: number; cursor?: string; all: boolean; signal?: AbortSignal; onMore?: (cursor: string) => void },
): Paged<WebhookSubscription> {
  return paginate(client, {
    path: '/webhooks',
    query: { limit: p.limit },
    page: listPage('/webhooks', WebhookList),
    cursor: p.cursor,
    all: p.all,
    signal: p.signal,
    onMore: p.onMore,
  });
}

export async function deleteWebhook(client: ApiClient, id: string, signal?: AbortSignal): Promise<unknown> {
  const response = await client.request<unknown>({ method: 'DELETE', path: apiPath('webhooks', id), schema: null, signal });
  return response.data;
}

export async function listDeliveries(
  client: ApiClient,
  p: { status?: string; subscriptionId?: string; limit?: number; signal?: AbortSignal },
): Promise<Delivery[]> {
  const response = await client.request({
    method: 'GET',
    path: '/webhooks/deliveries',
    query: { status: p.status, subscriptionId: p.subscriptionId, limit: p.limit },
    schema: DeliveryList,
    signal: p.signal,
  });
  return response.data.data;
}

export async function replayDelivery(client: ApiClient, id: string, signal?: AbortSignal): Promise<{ status: number; delivery: unknown }> {
  const response = await client.request({
    method: 'POST',
    path: apiPath('webhooks', 'deliveries', id, 'replay'),
    schema: ReplayResponse,
    signal,
  });
  const body = response.data;
  const delivery = body !== null && typeof body === 'object' && 'data' in body ? body.data : body;
  return { status: response.status, delivery };
}
