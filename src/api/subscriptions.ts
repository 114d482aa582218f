// Whether a delivery's subscription still exists. The service keeps the FAILED
// deliveries of a deleted subscription in its list, but answers 404 to their replay: they can
// never be cleared, so replay leaves them out, doctor counts them apart, and the incident
// commands say so. The one question, asked of one listing of GET /webhooks (every page).
import type { Delivery, WebhookSubscription } from '../shared/schemas.js';
import type { ApiClient } from './types.js';
import { listWebhooks } from './webhooks.js';

/** The most subscriptions a page of GET /webhooks holds (api.md, Limits). */
const WEBHOOK_PAGE = 50;

export interface SubscriptionCheck {
  /** The workspace's subscriptions by id, as listed (their URLs, for the incident commands). */
  readonly byId: ReadonlyMap<string, WebhookSubscription>;
  /** True when `subscriptionId` names no subscription of the workspace any more. */
  isDeleted(subscriptionId: string): boolean;
}

/** Lists the workspace's subscriptions once (a run, or one poll of `deliveries watch`). */
export async function checkSubscriptions(client: ApiClient, signal?: AbortSignal): Promise<SubscriptionCheck> {
  const byId = new Map<string, WebhookSubscription>();
  for await (const subscription of listWebhooks(client, { limit: WEBHOOK_PAGE, all: true, signal })) {
    if (typeof subscription.id === 'string') byId.set(subscription.id, subscription);
  }
  // A delivery without a subscription id (the field is "not shown" in api.md) is not judged deleted.
  return { byId, isDeleted: (id) => id !== '' && !byId.has(id) };
}

/** The subscription id of a delivery record, or '' when the server sent none. */
export function subscriptionOf(delivery: Delivery): string {
  const id = (delivery as { subscriptionId?: unknown }).subscriptionId;
  return typeof id === 'string' ? id : '';
}

/** The words every command uses for it. */
export function deletedSubscriptionText(subscriptionId: string): string {
  return `subscription ${subscriptionId} was deleted`;
}

/** `deliveries` split into those whose subscription exists and those of deleted ones. */
export function splitByDeletedSubscription(
  deliveries: readonly Delivery[],
  check: SubscriptionCheck,
): { live: Delivery[]; orphaned: Delivery[] } {
  const live: Delivery[] = [];
  const orphaned: Delivery[] = [];
  for (const d of deliveries) (check.isDeleted(subscriptionOf(d)) ? orphaned : live).push(d);
  return { live, orphaned };
}
