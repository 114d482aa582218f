// What rfs sandbox sent, for its inspector (sandbox.md, Inspecting it): every outgoing delivery
// with each attempt (the request, the receiver's answer or error, its duration), the /api/v1
// request log, and replay through the API itself (with the workspace's own key, which stays in
// this process: the page never sees one).
import { systemClock } from '../core/clock.js';
import type { InspectedDelivery, RunningSandbox, SandboxInspection } from '../sandbox/index.js';
import type { DeliveryDetail, DeliverySummary, Exchange } from './model.js';
import { newestFirst } from './order.js';
import { InspectorError, type InspectorSource } from './source.js';

/** How often the sandbox's deliveries are looked at for changes. */
const POLL_MS = 200;

function titleOf(body: string): string | null {
  try {
    const title = (JSON.parse(body) as { data?: { title?: unknown } } | null)?.data?.title;
    return typeof title === 'string' ? title : null;
  } catch {
    return null;
  }
}

/** Why a delivery of a deleted subscription is not replayed. */
const deletedSubscription = (d: InspectedDelivery): string =>
  `subscription ${d.subscriptionId} was deleted: its deliveries cannot be replayed`;

function summary(d: InspectedDelivery): DeliverySummary {
  const last = d.attempts.at(-1);
  return {
    id: d.id,
    // The time of the latest attempt (what the list is about), else when the delivery was made.
    at: new Date(last?.at ?? d.createdAt).toISOString(),
    event: d.event,
    deliveryId: d.id,
    recordingId: d.recordingId,
    title: titleOf(d.body),
    url: d.subscriptionUrl ?? last?.url ?? null,
    verdict: d.status,
    status: d.lastResponseStatus,
    target: last === undefined ? null : { status: last.responseStatus, durationMs: last.durationMs, error: last.error },
    // A replay through the API is one more attempt: it shows as the latest.
    replay: null,
    // The API answers 404 to a replay of a deleted subscription's delivery (cli.md, Deleted
    // subscriptions): the page's button is off with the reason, before anyone presses it.
    replayable: !d.subscriptionDeleted,
    resignable: false,
    ...(d.subscriptionDeleted ? { whyNotReplayable: deletedSubscription(d) } : {}),
    verified: true,
  };
}

/** Why the API answered 404 to a replay: the words of the rule when its subscription is gone, else what it may be. */
function notFound(d: InspectedDelivery, answer: string): string {
  let title = 'Not Found';
  try {
    const problem = JSON.parse(answer) as { title?: unknown };
    if (typeof problem.title === 'string') title = problem.title;
  } catch {
    // Not a problem document: its status says enough.
  }
  if (d.subscriptionDeleted) return `${deletedSubscription(d)} (the API answered 404: ${title})`;
  return `${title} (the API answered 404): it may be a delivery of a deleted subscription, which the service keeps listing but cannot replay`;
}

// A deleted subscription changes the row too: it is no longer replayable.
const fingerprint = (d: InspectedDelivery): string => `${d.status}|${d.attempts.length}|${d.subscriptionDeleted}`;

export class SandboxSource implements InspectorSource {
  private readonly listeners = new Set<(summary: DeliverySummary) => void>();
  private readonly seen = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly inspection: SandboxInspection;

  constructor(private readonly sandbox: RunningSandbox) {
    this.inspection = sandbox.inspection;
    for (const d of this.inspection.deliveries()) this.seen.set(d.id, fingerprint(d));
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.timer.unref();
  }

  info() {
    return { kind: 'sandbox' as const, forwardTo: null, canReplay: true, canResign: false, hasRequests: true, maxDeliveries: null };
  }

  /** Newest first by the latest attempt, as the page orders them (./order.ts). */
  list(): DeliverySummary[] {
    return this.inspection.deliveries().map(summary).sort(newestFirst);
  }

  private find(id: string): InspectedDelivery | undefined {
    return this.inspection.deliveries().find((d) => d.id === id);
  }

  detail(id: string): DeliveryDetail | undefined {
    const d = this.find(id);
    if (d === undefined) return undefined;
    const last = d.attempts.at(-1);
    return {
      ...summary(d),
      explanation: d.lastError ?? '',
      request: {
        method: 'POST',
        path: last?.url ?? '',
        headers: last?.requestHeaders ?? {},
        body: d.body,
        bodyBytes: Buffer.byteLength(d.body),
        bodyTruncated: false,
        bodyDropped: false,
      },
      exchangesDropped: 0,
      exchanges: d.attempts.map(
        (a): Exchange => ({
          label: `attempt ${a.attempt}`,
          at: new Date(a.at).toISOString(),
          url: a.url,
          request: { headers: a.requestHeaders, body: null },
          response: { status: a.responseStatus, headers: {}, body: null, bodyTruncated: false, error: a.error, durationMs: a.durationMs },
          dropped: false,
        }),
      ),
    };
  }

  body(id: string): Buffer | undefined {
    const d = this.find(id);
    return d === undefined ? undefined : Buffer.from(d.body, 'utf8');
  }

  curlTarget(id: string): string | undefined {
    return this.find(id)?.attempts.at(-1)?.url;
  }

  requests(since: number): unknown[] {
    return this.inspection.requests(since);
  }

  /** POST /api/v1/webhooks/deliveries/<id>/replay with the key of the delivery's workspace. */
  async replay(id: string, resign: boolean, edited?: Buffer): Promise<Exchange> {
    if (resign || edited !== undefined)
      throw new InspectorError(409, 'the sandbox signs every attempt when it sends it: replay without "resign" or an edited body');
    const d = this.find(id);
    if (d === undefined) throw new InspectorError(404, `no delivery ${id}`);
    const key =
      d.workspace === 'main' ? this.sandbox.apiKeys.admin : d.workspace === 'other' ? this.sandbox.apiKeys.otherWorkspace : undefined;
    if (key === undefined) throw new InspectorError(409, `no key of workspace ${d.workspace} can replay deliveries`);
    const url = `${this.sandbox.baseUrl}/api/v1/webhooks/deliveries/${encodeURIComponent(id)}/replay`;
    const started = performance.now();
    const at = new Date(systemClock.now()).toISOString();
    try {
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      const text = await res.text();
      // A first 404 says what it may be, as rfs deliveries replay does (cli.md, Deleted subscriptions).
      if (res.status === 404) throw new InspectorError(404, notFound(d, text));
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return {
        label: 'replay through the API',
        at,
        url: `/api/v1/webhooks/deliveries/${id}/replay`,
        request: { headers: {}, body: null },
        response: {
          status: res.status,
          headers,
          body: text,
          bodyTruncated: false,
          error: null,
          durationMs: Math.round(performance.now() - started),
        },
        dropped: false,
      };
    } catch (error) {
      if (error instanceof InspectorError) throw error;
      throw new InspectorError(502, `the sandbox did not answer the replay: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  subscribe(listener: (summary: DeliverySummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  private poll(): void {
    if (this.listeners.size === 0) {
      for (const d of this.inspection.deliveries()) this.seen.set(d.id, fingerprint(d));
      return;
    }
    for (const d of this.inspection.deliveries()) {
      const now = fingerprint(d);
      if (this.seen.get(d.id) === now) continue;
      this.seen.set(d.id, now);
      const row = summary(d);
      for (const listener of this.listeners) listener(row);
    }
  }
}
