// The budget of a process that serves someone else's calls (src/api/budget.ts, rfs mcp): slots
// held by requests on their way, attempts answered counted over the server's minute and a
// second, a 429 halving it; on a fake clock, with attempts told on the client's channel.
import { channel } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { BUDGET_WINDOW_MS, RequestBudget, withinBudget } from '../../src/api/budget.js';
import { ATTEMPT_CHANNEL } from '../../src/api/client.js';
import type { ApiClient, ApiResponse } from '../../src/api/types.js';
import { fakeTime } from '../helpers/clock.js';

const attempts = channel(ATTEMPT_CHANNEL);
const answered = (status: number | null = 200): void => attempts.publish({ method: 'GET', status, durationMs: 1 });

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function budgetOf(perMinute: number) {
  const time = fakeTime();
  const budget = new RequestBudget(perMinute, time.clock);
  stops.push(budget.listen());
  return { time, budget };
}

describe('RequestBudget', () => {
  it('hands out as many slots as the budget at once, and one more only when one is given back', () => {
    const { budget } = budgetOf(3);
    const slots = [budget.tryTake(), budget.tryTake(), budget.tryTake()];
    expect(slots.every((s) => s !== undefined)).toBe(true);
    expect(budget.tryTake()).toBeUndefined();
    slots[0]?.give();
    slots[0]?.give(); // twice is once
    expect(budget.free()).toBe(1);
    expect(budget.tryTake()).toBeDefined();
    expect(budget.tryTake()).toBeUndefined();
  });

  it('counts each answered attempt, retries included, for 61 s after its answer', () => {
    const { time, budget } = budgetOf(2);
    answered();
    time.advance(10_000);
    answered(503);
    expect(budget.free()).toBe(0);
    expect(budget.nextFreeIn()).toBe(BUDGET_WINDOW_MS - 10_000 + 1);
    time.advance(BUDGET_WINDOW_MS - 10_000);
    expect(budget.free()).toBe(1);
    time.advance(10_000);
    expect(budget.free()).toBe(2);
  });

  it('waits for a slot until the oldest attempt leaves the window', async () => {
    const { time, budget } = budgetOf(1);
    answered();
    const start = time.now;
    const slot = await budget.take(undefined);
    expect(time.now - start).toBe(BUDGET_WINDOW_MS + 1);
    slot.give();
  });

  it('halves the budget for five minutes after a 429', () => {
    const { time, budget } = budgetOf(12);
    answered(429);
    expect(budget.current()).toBe(6);
    time.advance(5 * 60_000);
    expect(budget.current()).toBe(12);
  });
});

describe('withinBudget', () => {
  it('holds a slot for each request until it is answered; the first request uses the slot the call was admitted with', async () => {
    const { budget } = budgetOf(2);
    let release: () => void = () => undefined;
    const client: ApiClient = {
      baseUrl: 'http://127.0.0.1:1',
      redactedKey: 'x',
      request: <T>() =>
        new Promise<ApiResponse<T>>((resolve) => {
          release = () => resolve({ status: 200, data: undefined as T, requestId: null, headers: {}, attempts: 1 });
        }),
      requestRaw: () => Promise.reject(new Error('not used')),
      close: async () => undefined,
    };
    const admitted = budget.tryTake();
    expect(budget.free()).toBe(1);
    const within = withinBudget(client, budget, admitted);
    const first = within.request({ method: 'GET', path: '/webhooks', schema: null });
    await new Promise((resolve) => setImmediate(resolve));
    // The admitted slot went to the request: none more was taken.
    expect(budget.free()).toBe(1);
    release();
    await first;
    expect(budget.free()).toBe(2);
  });
});
