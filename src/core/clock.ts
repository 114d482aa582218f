// Time and chance as one run sees them: the wall clock, waiting, and the random source of the
// retry jitter. Passed in (RunOptions.clock, Session.clock) so that tests move time on at once
// and can assert every wait that was chosen; the API client takes the same three members.
// Part of the base layer: it imports nothing of rfs.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** In [0, 1), as Math.random. */
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const stop = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', stop);
        resolve();
      }, ms);
      signal?.addEventListener('abort', stop, { once: true });
    }),
  random: () => Math.random(),
};
