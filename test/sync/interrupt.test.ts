// The Ctrl-C rule of rfs sync --watch (README, sync): 130 when Ctrl-C cut a pass short (the
// summary says what it was doing), 0 when it stops the watch between passes, where nothing
// was cut short (as `webhooks listen` and `sandbox` stop on Ctrl-C).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Clock } from '../../src/core/clock.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';
import { eventually, start, type Harness } from '../sandbox/helpers.js';
import { COMMAND } from './helpers.js';

let h: Harness;
let dir: string;
let markers: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 3 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-int-'));
  markers = join(dir, 'markers');
  mkdirSync(markers);
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function watch(env: NodeJS.ProcessEnv = {}, extra = ['--watch', '--interval', '9']) {
  const t = bufferIO({
    env: {
      RFS_CONFIG_DIR: join(dir, 'config'),
      RFS_API_KEY: h.keys.admin,
      RFS_BASE_URL: h.base,
      EXTERNAL_FILE: join(dir, 'external.jsonl'),
      MARKER_DIR: markers,
      PATH: process.env.PATH,
      ...env,
    },
  });
  const argv = ['sync', '--exec', COMMAND, '--provider', 'crm', '--journal', join(dir, 'j.jsonl'), '-o', 'ndjson', ...extra];
  return { t, run: (signal: AbortSignal, clock: Clock) => runCli(argv, t.io, { signal, clock }) };
}

describe('Ctrl-C on rfs sync', () => {
  it('exits 130 when it cuts a pass short, saying what it was doing', async () => {
    const controller = new AbortController();
    const { t, run } = watch({ SLOW_MS: '20000' });
    const exit = run(controller.signal, fakeTime().clock);
    await eventually(async () => (readdirSync(markers).length > 0 ? true : undefined), 10_000);
    controller.abort();
    expect(await exit).toBe(130);
    expect(t.stderr()).toMatch(/sync: 0 filed, 0 failed; interrupted while running the command for/);
    expect(existsSync(join(dir, 'external.jsonl'))).toBe(false);
  }, 30_000);

  it('exits 0 when it stops the watch between passes: nothing was cut short', async () => {
    const controller = new AbortController();
    const time = fakeTime();
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 9_000) controller.abort();
        return time.clock.sleep(ms, signal);
      },
    };
    const { t, run } = watch();
    expect(await run(controller.signal, clock)).toBe(0);
    expect(t.stdout().trim().split('\n')).toHaveLength(3);
    expect(t.stderr()).toMatch(/pass done: 3 filed, 0 failed/);
    expect(t.stderr()).not.toMatch(/interrupted/);
  }, 30_000);

  it('that comes once the pass has handled every recording cuts nothing short: the pass ends as usual (exit 8 here)', async () => {
    const controller = new AbortController();
    const [victim] = (await h.api('/recordings?limit=100')).json.data as { id: string }[];
    const { t, run } = watch({ FAIL_FOR: victim!.id }, []);
    let lines = 0;
    // Ctrl-C while the last result line is being written: every recording has been handled.
    t.io.stdout.on('data', (chunk: Buffer | string) => {
      lines += String(chunk).split('\n').length - 1;
      if (lines === 3) controller.abort();
    });
    expect(await run(controller.signal, fakeTime().clock)).toBe(8);
    expect(controller.signal.aborted).toBe(true);
    expect(t.stderr()).toMatch(/pass done: 2 filed, 1 failed/);
    expect(t.stderr()).not.toMatch(/interrupted/);
  }, 30_000);
});
