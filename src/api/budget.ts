// A budget of requests a minute for a process that serves someone else's calls (`rfs mcp`,
// cli.md): the integration shares the workspace's 120 requests a minute with whatever else runs
// (sync), so an agent's calls must not starve it. Like watch's budget (cli.md, deliveries,
// "watch's budget"): every attempt counts, retries included (the client tells them on
// ATTEMPT_CHANNEL), over a window of the server's minute and a second more, and a 429 halves the
// budget for five minutes. Unlike watch, calls come at once: a request holds a slot from before
// it is sent until it is answered, so concurrent callers never overrun it, and a caller may ask
// whether a slot is free now (`tryTake`) instead of waiting for one.
import { channel } from 'node:diagnostics_channel';
import type { Clock } from '../core/clock.js';
import { ATTEMPT_CHANNEL } from './client.js';
import type { ApiClient } from './types.js';
import { WORKSPACE_REQUESTS_PER_MINUTE } from '../shared/api-limits.js';

export const DEFAULT_BUDGET = 12;
/** A budget above the workspace's whole limit would only meet 429s. */
export const MAX_BUDGET = WORKSPACE_REQUESTS_PER_MINUTE;
/** The server's minute and a second more (watch's budget says why). */
export const BUDGET_WINDOW_MS = 61_000;
/** How long a 429 keeps the budget lowered. */
const SLOW_MS = 5 * 60_000;

/** One slot of the budget, taken: give it back when the request it was for is answered. */
export interface Slot {
  give(): void;
}

export class RequestBudget {
  /** When each attempt of the window was answered, oldest first. */
  private readonly answered: number[] = [];
  /** Slots taken and not given back: requests on their way, and calls admitted that have not sent yet. */
  private held = 0;
  private lowered: { perMinute: number; until: number } | undefined;
  /** Woken when a slot is given back. */
  private waiters: (() => void)[] = [];
  private readonly onAttempt = (message: unknown): void => {
    const { status } = message as { status: number | null };
    const now = this.clock.now();
    this.answered.push(now);
    this.prune(now);
    if (status === 429) this.lowered = { perMinute: Math.max(1, Math.floor(this.current(now) / 2)), until: now + SLOW_MS };
  };

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Counts every attempt of this process from now on; returns the way to stop. */
  listen(): () => void {
    const ch = channel(ATTEMPT_CHANNEL);
    ch.subscribe(this.onAttempt);
    return () => ch.unsubscribe(this.onAttempt);
  }

  /** The budget kept now: lowered after a 429. */
  current(now = this.clock.now()): number {
    if (this.lowered !== undefined && now >= this.lowered.until) this.lowered = undefined;
    return this.lowered?.perMinute ?? this.perMinute;
  }

  /** Slots free now. */
  free(now = this.clock.now()): number {
    this.prune(now);
    return Math.max(0, this.current(now) - this.answered.length - this.held);
  }

  /**
   * Milliseconds until a slot frees, as far as the answered attempts say (a slot held by a
   * request on its way frees sooner or later than that); 0 when one is free now.
   */
  nextFreeIn(now = this.clock.now()): number {
    if (this.free(now) > 0) return 0;
    const over = this.answered.length + this.held - this.current(now);
    const oldest = this.answered[Math.min(over, this.answered.length - 1)];
    return oldest === undefined ? BUDGET_WINDOW_MS : Math.max(1, oldest + BUDGET_WINDOW_MS - now + 1);
  }

  /** A slot if one is free now, without waiting. */
  tryTake(): Slot | undefined {
    if (this.free() === 0) return undefined;
    return this.hold();
  }

  /** Waits for a free slot and takes it. */
  async take(signal: AbortSignal | undefined): Promise<Slot> {
    for (;;) {
      const slot = this.tryTake();
      if (slot !== undefined) return slot;
      const given = new Promise<void>((resolve) => this.waiters.push(resolve));
      // Whichever comes first: an answered attempt leaving the window, or a slot given back.
      await Promise.race([this.clock.sleep(this.nextFreeIn(), signal), given]);
      signal?.throwIfAborted();
    }
  }

  private hold(): Slot {
    this.held += 1;
    let given = false;
    return {
      give: () => {
        if (given) return;
        given = true;
        this.held -= 1;
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      },
    };
  }

  private prune(now: number): void {
    while (this.answered.length > 0 && (this.answered[0] ?? now) <= now - BUDGET_WINDOW_MS) this.answered.shift();
  }
}

/**
 * `client` with each request holding a slot of `budget` until it is answered. `first`, a slot
 * taken already (the call was admitted with it), is used by the first request instead of
 * waiting for another.
 */
export function withinBudget(client: ApiClient, budget: RequestBudget, first?: Slot): ApiClient {
  let spare = first;
  const slot = async (signal: AbortSignal | undefined): Promise<Slot> => {
    const held = spare;
    spare = undefined;
    return held ?? budget.take(signal);
  };
  const within = async <T>(signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> => {
    const s = await slot(signal);
    try {
      return await send();
    } finally {
      s.give();
    }
  };
  return {
    baseUrl: client.baseUrl,
    redactedKey: client.redactedKey,
    request: (o) => within(o.signal, () => client.request(o)),
    requestRaw: (o) => within(o.signal, () => client.requestRaw(o)),
    close: () => {
      spare?.give();
      spare = undefined;
      return client.close();
    },
  };
}
