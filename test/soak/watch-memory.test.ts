// deliveries watch's memory over a minute (cli.md, deliveries watch: bounded memory): against a
// server that returns 50 new deliveries with 20 KB errors in every list, its memory stays under
// 150 MB for 60 s, every error text it prints cut to 200 characters. Real time: a soak test.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFloodServer } from '../commands/deliveries/watch/flood-server.js';
import { killAll, spawnRfs } from '../helpers/child.js';
import { LINUX, needs } from '../helpers/platform.js';

const children: ChildProcess[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-watch-memory-'));
});
afterEach(async () => {
  await killAll(children);
  rmSync(dir, { recursive: true, force: true });
});

const rfs = (args: string[], env: NodeJS.ProcessEnv) => spawnRfs(args, env, children);

it.skipIf(!LINUX.met)(
  needs(LINUX, 'stays under 150 MB for 60 s against a server with 50 new deliveries and 20 KB errors in every list'),
  async () => {
    const flood = await startFloodServer({ perList: 50, errorBytes: 20_000 });
    try {
      // Five times the default budget and the shortest interval: a poll of 7 lists every 7 s, each
      // list 50 new deliveries of 20 KB (about 60 MB read in the minute).
      const watch = rfs(['deliveries', 'watch', '--budget', '60', '--interval', '0.1', '--max-time', '60', '-o', 'ndjson'], {
        RFS_CONFIG_DIR: join(dir, 'config'),
        RFS_API_KEY: 'service_pk_flood_0123456789abcdef',
        RFS_BASE_URL: flood.url,
      });
      let peak = 0;
      const sample = setInterval(() => {
        try {
          const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${watch.child.pid}/status`, 'utf8'))?.[1];
          if (rss !== undefined) peak = Math.max(peak, Number(rss) * 1024);
        } catch {
          // Gone: the run is over.
        }
      }, 100);
      const code = await watch.exit;
      clearInterval(sample);
      expect(code).toBe(0);
      const { requests, deliveries } = flood.stats();
      // About 60 requests in the minute: the budget, spent (and 50 new deliveries in each list).
      expect(requests).toBeGreaterThan(45);
      expect(requests).toBeLessThanOrEqual(60 + 7);
      expect(deliveries).toBeGreaterThan(2000);
      // Each change line's error cut to 200 characters.
      const errors = watch
        .stdout()
        .split('\n')
        .slice(1, -1)
        .map((l) => (JSON.parse(l) as { lastError?: string }).lastError)
        .filter((e): e is string => e !== undefined);
      expect(errors.length).toBeGreaterThan(100);
      // The first poll is the baseline; every delivery after it is one line.
      for (const error of errors) expect(error).toMatch(/^\d+ x{190,196}…$/u);
      for (const error of errors) expect([...error]).toHaveLength(200);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(150 * 1024 * 1024);
    } finally {
      await flood.close();
    }
  },
  120_000,
);
