// An injected clock for the client and for runCli: time moves only when the code under test
// sleeps (or the test calls advance), every wait is recorded so that a test can assert the
// waits chosen, and random() is fixed. The code never waits for real.
import type { Clock } from '../../src/core/clock.js';

export interface FakeTime {
  /** Milliseconds since the epoch, moved on only by sleep() and advance(). */
  now: number;
  /** Every wait asked for, in order. */
  waits: number[];
  advance(ms: number): void;
  /** The Clock to hand to createApiClient or runCli (`{ clock: time.clock }`). */
  readonly clock: Clock;
}

/** Default start: 2026-11-22T14:05:00Z, the time the tests' fixtures are written around. */
export function fakeTime(start = Date.parse('2026-11-22T14:05:00Z'), random = 0.5): FakeTime {
  const time: FakeTime = {
    now: start,
    waits: [],
    advance(ms) {
      time.now += ms;
    },
    clock: {
      now: () => time.now,
      async sleep(ms, signal) {
        if (signal?.aborted) throw signal.reason;
        time.waits.push(ms);
        time.now += ms;
        // One turn of the event loop, as a real timer of 0 ms would give: sockets, aborts and
        // other timers get their turn, and a loop of waits cannot starve them.
        await new Promise((resolve) => setImmediate(resolve));
        if (signal?.aborted) throw signal.reason;
      },
      random: () => random,
    },
  };
  return time;
}
