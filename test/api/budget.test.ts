// The one budget (src/api/budget.ts) of watch, replay --wait and rfs mcp: attempts answered
// counted over the server's minute and a second, a 429 halving it; slots held by requests on
// their way (mcp), and every attempt, retries too, held until it fits (watch); on a fake clock,
// with attempts told on the client's channel.
import { channel } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { BUDGET_WINDOW_MS, RequestBudget, gatedByBudget, withinBudget } from '../../src/api/budget.js';
import { ATTEMPT_CHANNEL } from '../../src/api/client.js';
import type { ApiClient, ApiResponse } from '../../src/api/types.js';
import { fakeTime } from '../helpers/clock.js';
import { useScenario } from './support.js';

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

describe('RequestBudget, kept before every attempt (watch, replay --wait)', () => {
  it('lets an attempt through while the window has room, and waits until the oldest answer leaves it', async () => {
    const { time, budget } = budgetOf(2);
    answered();
    await budget.fits(undefined);
    expect(time.waits).toEqual([]);
    time.advance(1_000);
    answered();
    const start = time.now;
    await budget.fits(undefined);
    // The first answer, 1 s older, leaves the window first.
    expect(time.now - start).toBe(BUDGET_WINDOW_MS - 1_000 + 1);
  });

  it("counts one poll's attempts and spaces polls like it to the budget, never below the interval asked for", () => {
    const { budget } = budgetOf(12);
    answered();
    answered(503);
    answered();
    expect(budget.takeCount()).toBe(3);
    expect(budget.takeCount()).toBe(0);
    expect(budget.spacing(3, 1_000)).toBe(Math.ceil((3 * BUDGET_WINDOW_MS) / 12));
    expect(budget.spacing(1, 60_000)).toBe(60_000);
  });

  it('says it is throttled, and until when, while a 429 keeps the budget lowered', () => {
    const { time, budget } = budgetOf(12);
    expect(budget.throttled()).toBeUndefined();
    answered(429);
    expect(budget.throttled()).toEqual({ perMinute: 6, until: time.now + 5 * 60_000 });
    time.advance(5 * 60_000);
    expect(budget.throttled()).toBeUndefined();
  });
});

describe('gatedByBudget', () => {
  const scenario = useScenario();

  it('holds every attempt of a request to the budget, its retries too', async () => {
    const budget = new RequestBudget(1, scenario.time.clock);
    stops.push(budget.listen());
    scenario.server.queue(
      { expect: { method: 'GET', url: '/api/v1/webhooks' }, status: 503, body: { title: 'Unavailable', status: 503 } },
      { expect: { method: 'GET', url: '/api/v1/webhooks' }, body: { data: [] } },
    );
    const client = gatedByBudget(scenario.client(), budget);
    const start = scenario.time.now;
    const answer = await client.request({ method: 'GET', path: '/webhooks', schema: null });
    expect(answer.attempts).toBe(2);
    // The retry's own backoff is shorter than the window: the budget of one a minute held it longer.
    expect(scenario.time.now - start).toBeGreaterThanOrEqual(BUDGET_WINDOW_MS);
    expect(budget.takeCount()).toBe(2);
  });
});
