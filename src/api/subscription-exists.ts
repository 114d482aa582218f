// Does a delivery's subscription still exist? (issue 27; the same question as issue 26 item 3.)
// The service keeps the deliveries of a deleted subscription in its list; the incident commands
// (`deliveries summary`, `deliveries watch`) show them as deleted. One listing of GET /webhooks
// (every page) answers it for a run, or for one poll of `watch`.
import type { WebhookSubscription } from '../shared/schemas.js';
import type { ApiClient } from './types.js';
import { listWebhooks } from './webhooks.js';

/** The most subscriptions a page of GET /webhooks holds (api.md, Limits). */
const WEBHOOK_PAGE = 50;

export interface LiveSubscriptions {
  /** The workspace's subscriptions by id, as listed. */
  readonly byId: ReadonlyMap<string, WebhookSubscription>;
  /** True when `subscriptionId` names no subscription of the workspace any more ('' is never deleted). */
  isDeleted(subscriptionId: string): boolean;
}

/** Lists the workspace's subscriptions once, through the one client. */
export async function listLiveSubscriptions(client: ApiClient, signal?: AbortSignal): Promise<LiveSubscriptions> {
  const byId = new Map<string, WebhookSubscription>();
  for await (const subscription of listWebhooks(client, { limit: WEBHOOK_PAGE, all: true, signal })) {
    if (subscription.id !== undefined) byId.set(subscription.id, subscription);
  }
  return { byId, isDeleted: (id) => id !== '' && !byId.has(id) };
}
