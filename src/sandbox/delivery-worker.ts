// The background worker that sends deliveries: one attempt at a time per delivery, a timer for
// each retry, the URL checked again before every attempt (api.md, Delivery behaviour 3), and
// every attempt recorded. close() stops the timers and aborts what is in flight.
import { deliveryHeaders } from '../shared/delivery.js';
import { postOnce, type PostResult } from './delivery-http.js';
import type { DeliveryFaults } from './delivery-faults.js';
import { checkWebhookUrl, type UrlPolicy } from './url-guard.js';
import type { WebhookStore } from './webhooks-store.js';
import type { Change, Delivery } from './types.js';

export interface WorkerOptions {
  policy: UrlPolicy;
  maxAttempts: number;
  /** The wait after the first failed attempt; each later wait is four times the one before. */
  backoffMs: number;
  timeoutMs: number;
  now: () => number;
  log: (line: string) => void;
  /** A delivery's record changed (--data writes it). */
  changed: (change: Change) => void;
  /** Receiver faults set through the control API; none when absent. */
  faults?: DeliveryFaults;
}

function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

export class DeliveryWorker {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private abort = new AbortController();
  /** Bumped by stop(): an attempt that started before it is dropped, not recorded. */
  private generation = 0;

  constructor(
    private store: WebhookStore,
    private readonly options: WorkerOptions,
  ) {}

  /** Attempts the delivery after `delayMs` (0: as soon as possible). */
  schedule(d: Delivery, delayMs: number): void {
    clearTimeout(this.timers.get(d.id));
    if (this.inFlight.has(d.id)) return;
    const timer = setTimeout(() => {
      this.timers.delete(d.id);
      const run = this.attempt(d).then(
        (retryIn) => {
          this.inFlight.delete(d.id);
          if (retryIn !== null) this.schedule(d, retryIn);
        },
        (error: unknown) => {
          this.inFlight.delete(d.id);
          this.options.log(`delivery ${d.id}: ${error instanceof Error ? error.message : String(error)}`);
        },
      );
      this.inFlight.set(d.id, run);
    }, delayMs);
    this.timers.set(d.id, timer);
  }

  /** Back to PENDING with a fresh round of attempts, under the same delivery id. */
  replay(d: Delivery): void {
    d.status = 'PENDING';
    d.roundAttempts = 0;
    // An attempt in flight counts as the first of the new round.
    this.schedule(d, 0);
  }

  /** Ends a pending delivery for good (its subscription was deleted). */
  cancel(d: Delivery, reason: string): void {
    clearTimeout(this.timers.get(d.id));
    this.timers.delete(d.id);
    if (d.status === 'PENDING') {
      d.status = 'FAILED';
      d.lastError = reason;
    }
  }

  /** After a start from saved state: pending deliveries carry on. */
  resume(): void {
    for (const d of this.store.deliveries.values()) if (d.status === 'PENDING') this.schedule(d, 0);
  }

  /** One attempt; answers the wait before the next one, or null when there is none. */
  private async attempt(d: Delivery): Promise<number | null> {
    const generation = this.generation;
    const { policy, now, maxAttempts, timeoutMs } = this.options;
    const sub = this.store.subscriptions.get(d.subscriptionId);
    if (!sub) {
      this.cancel(d, 'subscription deleted');
      this.options.changed({ kind: 'delivery', id: d.id });
      return null;
    }
    const startedAt = now();
    const started = performance.now();
    const body = Buffer.from(d.body, 'utf8');
    const verdict = await checkWebhookUrl(sub.url, policy);
    let headers: Record<string, string> = {};
    let address: string | null = null;
    let result: PostResult;
    if (!verdict.ok) {
      result = { status: null, error: `URL refused: ${verdict.reason}` };
    } else {
      address = verdict.addresses[0] ?? null;
      const mischief = this.options.faults?.next();
      // Signed at the moment of sending, so a retry never carries a stale timestamp (unless a
      // receiver fault asks for one).
      const timestamp = Math.floor(now() / 1000) - (mischief?.ageSeconds ?? 0);
      headers = {
        'content-type': 'application/json',
        'user-agent': 'rfs-sandbox',
        ...deliveryHeaders({ secret: mischief?.wrongSecret ?? sub.secret, timestamp, body, event: d.event, deliveryId: d.id }),
      };
      result = await postOnce(verdict.url, address ?? '', headers, body, timeoutMs, this.abort.signal);
      if (mischief?.duplicate && generation === this.generation) {
        // The same request again, as an at-least-once sender does: the first answer decides.
        const again = await postOnce(verdict.url, address ?? '', headers, body, timeoutMs, this.abort.signal);
        this.options.log(
          `delivery ${d.id}: sent twice on purpose (receiver fault); the copy got ${again.status === null ? (again.error ?? 'no answer') : `HTTP ${again.status}`}`,
        );
      }
    }
    if (generation !== this.generation) return null;

    const status = result.status;
    const ok = status !== null && status >= 200 && status < 300;
    const error =
      result.error ??
      (ok || status === null ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`);
    d.attempts++;
    d.roundAttempts++;
    d.lastAttemptAt = startedAt;
    d.lastResponseStatus = status;
    d.lastError = error;
    const durationMs = Math.round(performance.now() - started);
    this.store.logAttempt(d, {
      attempt: d.attempts,
      at: startedAt,
      url: sub.url,
      address,
      requestHeaders: headers,
      requestBody: d.body,
      responseStatus: status,
      error,
      durationMs,
    });

    // A delivery cancelled meanwhile (subscription deleted) keeps its status.
    let retryIn: number | null = null;
    if (d.status === 'PENDING') {
      if (ok) d.status = 'SUCCEEDED';
      else if (d.roundAttempts >= maxAttempts) d.status = 'FAILED';
      else retryIn = this.options.backoffMs * 4 ** (d.roundAttempts - 1);
    }
    const outcome = ok ? `HTTP ${status}` : (error ?? 'failed');
    const next = retryIn === null ? '' : `; next attempt in ${retryIn} ms`;
    this.options.log(
      `delivery ${d.id} attempt ${d.roundAttempts}/${maxAttempts} to ${where(sub.url)}: ${outcome} in ${durationMs} ms, ${d.status}${next}`,
    );
    this.options.changed({ kind: 'delivery', id: d.id });
    return retryIn;
  }

  /** Stops every timer and aborts attempts in flight; the deliveries stay as they are. */
  async stop(): Promise<void> {
    this.generation++;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.abort.abort();
    await Promise.allSettled([...this.inFlight.values()]);
    this.inFlight.clear();
    this.abort = new AbortController();
  }

  /** After a reset: the worker serves a new store. */
  async restart(store: WebhookStore): Promise<void> {
    await this.stop();
    this.store = store;
  }
}
