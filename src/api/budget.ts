// A budget of requests a minute, for a process that shares the workspace's 120 a minute with
// whatever else runs (sync): `deliveries watch` and `replay --wait` (cli.md, deliveries, "watch's
// budget"), and `rfs mcp`, whose agent's calls must not starve the integration. Every attempt
// counts, retries included (the client tells them on ATTEMPT_CHANNEL), over a window of the
// server's minute and a second more, and a 429 halves the budget for five minutes. Two ways to
// keep to it, over the one count:
// - `gatedByBudget` (watch, replay --wait): every attempt of every request, retries too, waits
//   until one more fits in the window (the client's `beforeAttempt`); polls are spaced by what the
//   last one cost (`spacing`, `takeCount`), so that the interval watch shows is the one it keeps.
// - `withinBudget` (mcp): calls come at once, so a request holds a slot from before it is sent
//   until it is answered, and concurrent callers never overrun it; a caller may ask whether a
//   slot is free now (`tryTake`) instead of waiting for one.
import { channel } from 'node:diagnostics_channel';
import type { Clock } from '../core/clock.js';
import { WORKSPACE_REQUESTS_PER_MINUTE } from '../shared/api-limits.js';
import type { AttemptFn } from './attempt.js';
import type { ApiClient } from './types.js';
import { ATTEMPT_CHANNEL, cancellable } from './waits.js';

/** rfs mcp's budget when none is given: a tenth of the workspace's limit. */
export const DEFAULT_BUDGET = WORKSPACE_REQUESTS_PER_MINUTE / 10;
/** A budget above the workspace's whole limit would only meet 429s. */
export const MAX_BUDGET = WORKSPACE_REQUESTS_PER_MINUTE;
/**
 * The server's minute and a second more: the server counts and logs a request a little after
 * the client has its answer when it is busy (a few ms, up to hundreds), so a window of exactly
 * 60 s let one poll's first request into the server's minute of the one before (13 requests
 * in a minute of the sandbox's log at a budget of 12).
 */
export const BUDGET_WINDOW_MS = 61_000;
/** How long a 429 keeps the budget lowered. */
const SLOW_MS = 5 * 60_000;

/** One slot of the budget, taken: give it back when the request it was for is answered. */
export interface Slot {
  give(): void;
}

export interface Throttled {
  /** The budget it now keeps, requests a minute. */
  perMinute: number;
  /** Until when (the clock's ms). */
  until: number;
}

export class RequestBudget {
  /**
   * When each attempt of the window was answered, oldest first: the end, not the start, since
   * the server counts and logs a request between the two, never before it is sent.
   */
  private readonly answered: number[] = [];
  /** Slots taken and not given back: requests on their way, and calls admitted that have not sent yet. */
  private held = 0;
  private lowered: Throttled | undefined;
  /** Attempts answered since the last `takeCount()` (one poll's cost). */
  private counted = 0;
  /** Woken when a slot is given back. */
  private waiters: (() => void)[] = [];
  private readonly onAttempt = (message: unknown): void => {
    const { status } = message as { status: number | null };
    const now = this.clock.now();
    this.answered.push(now);
    this.counted += 1;
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

  /** Set while a 429 keeps the budget lowered. */
  throttled(now = this.clock.now()): Throttled | undefined {
    this.current(now);
    return this.lowered;
  }

  /** The attempts counted since the last call, and the count starts again (one poll's cost). */
  takeCount(): number {
    const n = this.counted;
    this.counted = 0;
    return n;
  }

  /** How long to wait after a poll of `requests` attempts so that polls like it keep to the budget, at least `minimum`. */
  spacing(requests: number, minimum: number, now = this.clock.now()): number {
    return Math.max(minimum, Math.ceil((Math.max(1, requests) * BUDGET_WINDOW_MS) / this.current(now)));
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
    // The oldest answered attempt that must leave the window before one more fits.
    const over = this.answered.length + this.held - this.current(now);
    const oldest = this.answered[Math.min(over, this.answered.length - 1)];
    return oldest === undefined ? BUDGET_WINDOW_MS : Math.max(1, oldest + BUDGET_WINDOW_MS - now + 1);
  }

  /** Waits until one more attempt fits in the window, holding nothing (watch's gate before every attempt). */
  async fits(signal: AbortSignal | undefined): Promise<void> {
    for (let wait = this.nextFreeIn(); wait > 0; wait = this.nextFreeIn()) await this.clock.sleep(wait, signal);
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
 * The client's wrapper of an attempt for a caller's budget: every attempt of a request that
 * carries a `beforeAttempt` gate (`gatedByBudget`'s), retries included, waits on it first.
 */
export function budgetGated(next: AttemptFn): AttemptFn {
  return async (out, attempt) => {
    const gate = out.beforeAttempt;
    if (gate !== undefined) await cancellable(out.signal, () => gate(out.signal));
    return next(out, attempt);
  };
}

/** `client` with every attempt of every request (retries too) waiting until it fits in `budget` first. */
export function gatedByBudget(client: ApiClient, budget: RequestBudget): ApiClient {
  const gate = (signal: AbortSignal | undefined): Promise<void> => budget.fits(signal);
  return {
    baseUrl: client.baseUrl,
    redactedKey: client.redactedKey,
    request: (o) => client.request({ ...o, beforeAttempt: gate }),
    requestRaw: (o) => client.requestRaw({ ...o, beforeAttempt: gate }),
    close: () => client.close(),
  };
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
