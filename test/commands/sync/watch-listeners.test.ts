// sync --watch runs for days: a pass must leave nothing behind on the run's abort signal, or
// every pass adds a listener (MaxListenersExceededWarning after about 11, one closure a minute).
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

let h: Harness;
let dir: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 2 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-watch-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('rfs sync --watch', () => {
  it('keeps the number of abort listeners bounded over 30 passes, with no MaxListenersExceededWarning', async () => {
    const time = fakeTime();
    const controller = new AbortController();
    const counts: number[] = [];
    let passes = 0;
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 5_000) {
          counts.push(getEventListeners(controller.signal, 'abort').length);
          if (++passes === 30) controller.abort();
        }
        return time.clock.sleep(ms, signal);
      },
    };
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      const t = bufferIO({
        env: syncEnv(h, dir),
      });
      const argv = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '--watch', '--interval', '5', '-q'];
      await runCli(argv, t.io, { signal: controller.signal, clock });
      // Let a warning emitted on the last pass reach its listener.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(passes).toBe(30);
    expect(Math.max(...counts)).toBeLessThanOrEqual(counts[0]! + 1);
    expect(counts.at(-1)).toBeLessThanOrEqual(counts[0]!);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  }, 60_000);
});
