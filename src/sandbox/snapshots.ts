// Snapshots (sandbox.md, In an integrator's own tests): the state copied in memory, so that a
// suite can go back to it between tests in milliseconds. Copies are plain field copies, not a
// serialisation: restoring 10,000 recordings is about copying 10,000 small objects.
import type { Delivery, Recording } from './types.js';
import { WebhookStore, type IdempotencyEntry } from './webhooks-store.js';

/**
 * The most snapshots held at once. Each is a copy of the whole state: 300 of a state of 50,000
 * recordings took the sandbox from 109 MB to 3.57 GB. A new name beyond the cap is refused
 * (409), not made by dropping the oldest: a suite's baseline, saved first, must never vanish.
 */
export const MAX_SNAPSHOTS = 20;

export interface Snapshot {
  recordingCount: number;
  recordings: Recording[];
  webhooks: WebhookStore;
}

/** Filings are never changed once made, so the list is copied and its items shared. */
export function copyRecording(rec: Recording): Recording {
  return { ...rec, filings: rec.filings === null ? null : [...rec.filings] };
}

function copyDelivery(d: Delivery): Delivery {
  return { ...d, log: d.log.map((a) => ({ ...a, requestHeaders: { ...a.requestHeaders } })) };
}

/** Subscriptions, deliveries and finished idempotency keys; a request still in progress is not part of a state. */
export function copyWebhookStore(store: WebhookStore): WebhookStore {
  const idempotency: [string, IdempotencyEntry][] = [];
  for (const [key, entry] of store.idempotency) if (entry.state === 'done') idempotency.push([key, { ...entry }]);
  return new WebhookStore({
    subscriptions: [...store.subscriptions.values()].map((s) => ({ ...s, events: [...s.events] })),
    deliveries: [...store.deliveries.values()].map(copyDelivery),
    idempotency,
  });
}
