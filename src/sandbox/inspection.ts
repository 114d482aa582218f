// What `rfs sandbox --inspect` shows (sandbox.md, Inspecting it), read from the running service:
// every outgoing delivery with its attempts, and the /api/v1 request log. A hook, read-only:
// the inspector (src/inspector/sandbox-source.ts) polls it and replays through the API.
import type { App } from './app.js';
import type { LoggedRequest } from './request-log.js';
import type { DeliveryAttempt, WorkspaceId } from './types.js';

export interface InspectedDelivery {
  id: string;
  workspace: WorkspaceId;
  subscriptionId: string;
  /** Whether its subscription is gone: the API then answers 404 to a replay of it. */
  subscriptionDeleted: boolean;
  /** Its subscription's URL; null once the subscription is gone. */
  subscriptionUrl: string | null;
  event: string;
  recordingId: string;
  status: string;
  body: string;
  createdAt: number;
  attempts: readonly DeliveryAttempt[];
  lastError: string | null;
  lastResponseStatus: number | null;
}

export interface SandboxInspection {
  /** Every workspace's deliveries, in creation order. */
  deliveries(): InspectedDelivery[];
  /** The /api/v1 requests after `since` (a seq), oldest first; keys redacted (request-log.ts). */
  requests(since: number): LoggedRequest[];
  /** The webhook secrets of its subscriptions: what the inspector keeps from its page. */
  subscriptionSecrets(): string[];
}

export function inspectionOf(app: App): SandboxInspection {
  return {
    deliveries: () =>
      [...app.webhooks.data.deliveries.values()].map((d) => ({
        id: d.id,
        workspace: d.workspace,
        subscriptionId: d.subscriptionId,
        subscriptionDeleted: !app.webhooks.data.subscriptions.has(d.subscriptionId),
        subscriptionUrl: app.webhooks.data.subscriptions.get(d.subscriptionId)?.url ?? null,
        event: d.event,
        recordingId: d.recordingId,
        status: d.status,
        body: d.body,
        createdAt: d.createdAt,
        attempts: d.log,
        lastError: d.lastError,
        lastResponseStatus: d.lastResponseStatus,
      })),
    requests: (since) => app.requestLog.since(since),
    subscriptionSecrets: () => [...app.webhooks.data.subscriptions.values()].map((s) => s.secret),
  };
}
