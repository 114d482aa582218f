// Webhook operations: subscriptions made once per idempotency key, one delivery per
// subscription and recording when a recording completes, replays and deletes. The data lives
// in WebhookStore; the sending in DeliveryWorker.
import { COMPLETED_EVENT, deliveryBody } from '../shared/delivery.js';
import { DeliveryWorker, type WorkerOptions } from './delivery-worker.js';
import { ProblemError, notFound } from './problem.js';
import { newDeliveryId, newWebhookSecret, randomBase62 } from '../shared/ids.js';
import type { Position } from './recordings.js';
import type { WebhookCreateResponse } from './contract.js';
import type { Delivery, DeliveryStatus, Recording, Subscription, WebhookEvent, WorkspaceId } from './types.js';
import { checkWebhookUrl } from './url-guard.js';
import { MAX_SUBSCRIPTIONS, WebhookStore } from './webhooks-store.js';

const EVENT = COMPLETED_EVENT;

export interface WebhookServiceOptions extends WorkerOptions {
  /** data of the payload for a recording (views.ts). */
  payloadData: (rec: Recording) => Record<string, unknown>;
}

export class WebhookService {
  private readonly worker: DeliveryWorker;

  constructor(
    private store: WebhookStore,
    private readonly options: WebhookServiceOptions,
  ) {
    this.worker = new DeliveryWorker(store, options);
    this.worker.resume();
  }

  get data(): WebhookStore {
    return this.store;
  }

  /**
   * Creates a subscription once per idempotency key. The key is reserved before the first
   * await (DNS), so a concurrent request with the same key waits for this one's outcome: a
   * success is answered again (201, secret included); a failure frees the key for a new try.
   */
  async create(
    workspace: WorkspaceId,
    key: string,
    input: { url: string; events: WebhookEvent[] },
  ): Promise<{ status: number; body: string }> {
    const { store } = this;
    const { now } = this.options;
    const slot = `${workspace}\u0000${key}`;
    store.sweepIdempotency(now());
    for (let entry = store.idempotency.get(slot); entry; entry = store.idempotency.get(slot)) {
      if (entry.state === 'done') return { status: entry.status, body: entry.body };
      await entry.settled;
    }
    let release = (): void => undefined;
    const settled = new Promise<void>((resolve) => {
      release = resolve;
    });
    store.idempotency.set(slot, { at: now(), state: 'pending', settled });
    try {
      const verdict = await checkWebhookUrl(input.url, this.options.policy);
      if (!verdict.ok) throw new ProblemError('INVALID_INPUT', `url: ${verdict.reason}`);
      if (store.subscriptionsOf(workspace).length >= MAX_SUBSCRIPTIONS) {
        throw new ProblemError('WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED', `delete a subscription first; the limit is ${MAX_SUBSCRIPTIONS}`);
      }
      const sub: Subscription = {
        id: `wh_${randomBase62(20)}`,
        workspace,
        url: input.url,
        events: [...new Set(input.events)],
        secret: newWebhookSecret(),
        createdAt: store.nextCreatedAt(now()),
      };
      store.subscriptions.set(sub.id, sub);
      const answer: WebhookCreateResponse = {
        data: { id: sub.id, url: sub.url, events: sub.events, secret: sub.secret, createdAt: new Date(sub.createdAt).toISOString() },
      };
      const body = JSON.stringify(answer);
      store.idempotency.set(slot, { at: now(), state: 'done', status: 201, body });
      this.options.changed({ kind: 'subscription', id: sub.id });
      this.options.changed({ kind: 'idempotency', id: slot });
      return { status: 201, body };
    } catch (error) {
      store.idempotency.delete(slot);
      throw error;
    } finally {
      release();
    }
  }

  page(workspace: WorkspaceId, after: Position | null, limit: number): { items: Subscription[]; hasMore: boolean } {
    return this.store.pageSubscriptions(workspace, after, limit);
  }

  /** Removes the subscription and ends its pending deliveries. */
  delete(workspace: WorkspaceId, id: string): void {
    const sub = this.store.subscription(workspace, id);
    if (!sub) throw notFound('no such webhook subscription in this workspace');
    this.store.subscriptions.delete(sub.id);
    for (const d of this.store.deliveries.values()) {
      if (d.subscriptionId !== sub.id) continue;
      this.worker.cancel(d, 'subscription deleted');
      this.options.changed({ kind: 'delivery', id: d.id });
    }
    this.options.changed({ kind: 'subscription', id: sub.id });
  }

  /** One delivery per subscription and recording, ever: a second completion sends nothing. */
  dispatchCompleted(rec: Recording): void {
    const { now } = this.options;
    for (const sub of this.store.listeners(rec.workspace, EVENT)) {
      if (this.store.wasDispatched(sub.id, rec.id)) continue;
      const id = newDeliveryId();
      const delivery: Delivery = {
        id,
        workspace: rec.workspace,
        subscriptionId: sub.id,
        event: EVENT,
        recordingId: rec.id,
        status: 'PENDING',
        body: deliveryBody(id, EVENT, this.options.payloadData(rec)),
        attempts: 0,
        roundAttempts: 0,
        lastAttemptAt: null,
        lastResponseStatus: null,
        lastError: null,
        createdAt: now(),
        log: [],
      };
      this.store.addDelivery(delivery);
      this.options.changed({ kind: 'delivery', id });
      this.worker.schedule(delivery, 0);
    }
  }

  deliveries(
    workspace: WorkspaceId,
    filter: { status?: DeliveryStatus | undefined; subscriptionId?: string | undefined },
    limit: number,
  ): Delivery[] {
    return this.store.listDeliveries(workspace, filter, limit);
  }

  replay(workspace: WorkspaceId, id: string): Delivery {
    const d = this.store.delivery(workspace, id);
    if (!d) throw notFound('no such delivery in this workspace');
    if (!this.store.subscriptions.has(d.subscriptionId)) throw notFound('the subscription of this delivery was deleted');
    this.worker.replay(d);
    this.options.changed({ kind: 'delivery', id: d.id });
    return d;
  }

  /** Any workspace: for the control API. */
  delivery(id: string): Delivery | undefined {
    return this.store.deliveries.get(id);
  }

  counts(): Record<string, number> {
    const counts = { total: 0, pending: 0, succeeded: 0, failed: 0, attempts: 0 };
    for (const d of this.store.deliveries.values()) {
      counts.total++;
      counts.attempts += d.attempts;
      if (d.status === 'PENDING') counts.pending++;
      else if (d.status === 'SUCCEEDED') counts.succeeded++;
      else counts.failed++;
    }
    return counts;
  }

  /**
   * Adds history made elsewhere (a scenario): subscriptions, deliveries oldest first, and when
   * each PENDING one's next attempt is due; those carry on from then, as if the worker had
   * made the attempts before.
   */
  addHistory(subscriptions: Subscription[], deliveries: Delivery[], nextAttemptAt: ReadonlyMap<string, number>): void {
    for (const sub of subscriptions) this.store.addSubscription(sub);
    for (const d of deliveries) this.store.addDelivery(d);
    const now = this.options.now();
    for (const [id, at] of nextAttemptAt) {
      const d = this.store.deliveries.get(id);
      if (d?.status === 'PENDING') this.worker.schedule(d, Math.max(0, at - now));
    }
  }

  /** Forgets every subscription, delivery and key (control API reset). */
  async reset(): Promise<void> {
    const store = new WebhookStore();
    await this.worker.restart(store);
    this.store = store;
  }

  /** Serves another store from now on (a snapshot or a state put): its pending deliveries carry on. */
  async replace(store: WebhookStore): Promise<void> {
    await this.worker.restart(store);
    this.store = store;
    this.worker.resume();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}
