// Webhook subscriptions, the idempotency keys that created them, and deliveries: plain data,
// kept here so that state, persistence and the delivery worker share one copy.
import type { Position } from './recordings.js';
import type { Delivery, DeliveryStatus, Subscription, WebhookEvent, WorkspaceId } from './types.js';

export type IdempotencyEntry =
  | { at: number; state: 'pending'; settled: Promise<void> }
  | { at: number; state: 'done'; status: number; body: string };

export const MAX_SUBSCRIPTIONS = 50; // api.md, Limits
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000; // sandbox.md: keys are remembered for 24 hours
const MAX_LOGGED_ATTEMPTS = 100;

function byCreation(a: Position, b: Position): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export class WebhookStore {
  readonly subscriptions = new Map<string, Subscription>();
  readonly deliveries = new Map<string, Delivery>();
  readonly idempotency = new Map<string, IdempotencyEntry>();
  /** subscription id + recording id: each pair gets one delivery, ever (api.md, dedup). */
  private readonly dispatched = new Set<string>();
  /** The newest createdAt handed out: subscriptions made in the same millisecond still list in creation order. */
  private lastCreatedAt = 0;

  constructor(init?: { subscriptions: Subscription[]; deliveries: Delivery[]; idempotency: [string, IdempotencyEntry][] }) {
    for (const sub of init?.subscriptions ?? []) {
      this.subscriptions.set(sub.id, sub);
      this.lastCreatedAt = Math.max(this.lastCreatedAt, sub.createdAt);
    }
    for (const d of init?.deliveries ?? []) this.addDelivery(d);
    for (const [key, entry] of init?.idempotency ?? []) this.idempotency.set(key, entry);
  }

  /**
   * A creation time for a new subscription, later than every earlier one. Ties would otherwise be
   * ordered by the random id, so `webhooks list` would not show subscriptions in the order made.
   */
  nextCreatedAt(now: number): number {
    this.lastCreatedAt = Math.max(now, this.lastCreatedAt + 1);
    return this.lastCreatedAt;
  }

  /** A subscription made elsewhere than POST /webhooks (a scenario's history). */
  addSubscription(sub: Subscription): void {
    this.subscriptions.set(sub.id, sub);
    this.lastCreatedAt = Math.max(this.lastCreatedAt, sub.createdAt);
  }

  subscriptionsOf(workspace: WorkspaceId): Subscription[] {
    return [...this.subscriptions.values()].filter((s) => s.workspace === workspace).sort(byCreation);
  }

  subscription(workspace: WorkspaceId, id: string): Subscription | undefined {
    const sub = this.subscriptions.get(id);
    return sub?.workspace === workspace ? sub : undefined;
  }

  pageSubscriptions(workspace: WorkspaceId, after: Position | null, limit: number): { items: Subscription[]; hasMore: boolean } {
    const all = this.subscriptionsOf(workspace).filter((s) => after === null || byCreation(s, after) > 0);
    return { items: all.slice(0, limit), hasMore: all.length > limit };
  }

  listeners(workspace: WorkspaceId, event: WebhookEvent): Subscription[] {
    return this.subscriptionsOf(workspace).filter((s) => s.events.includes(event));
  }

  wasDispatched(subscriptionId: string, recordingId: string): boolean {
    return this.dispatched.has(`${subscriptionId}\u0000${recordingId}`);
  }

  addDelivery(d: Delivery): void {
    this.deliveries.set(d.id, d);
    this.dispatched.add(`${d.subscriptionId}\u0000${d.recordingId}`);
  }

  delivery(workspace: WorkspaceId, id: string): Delivery | undefined {
    const d = this.deliveries.get(id);
    return d?.workspace === workspace ? d : undefined;
  }

  /** Newest first (Map order is creation order). */
  listDeliveries(
    workspace: WorkspaceId,
    filter: { status?: DeliveryStatus | undefined; subscriptionId?: string | undefined },
    limit: number,
  ): Delivery[] {
    const all = [...this.deliveries.values()];
    const out: Delivery[] = [];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
      const d = all[i] as Delivery;
      if (d.workspace !== workspace) continue;
      if (filter.status !== undefined && d.status !== filter.status) continue;
      if (filter.subscriptionId !== undefined && d.subscriptionId !== filter.subscriptionId) continue;
      out.push(d);
    }
    return out;
  }

  logAttempt(d: Delivery, attempt: Delivery['log'][number]): void {
    d.log.push(attempt);
    if (d.log.length > MAX_LOGGED_ATTEMPTS) d.log.splice(0, d.log.length - MAX_LOGGED_ATTEMPTS);
  }

  /** Forgets idempotency keys older than the TTL (finished ones only). */
  sweepIdempotency(now: number): void {
    for (const [key, entry] of this.idempotency) {
      if (entry.state === 'done' && now - entry.at >= IDEMPOTENCY_TTL_MS) this.idempotency.delete(key);
    }
  }
}
