// Spinners only on a terminal (cli.md, "Standard streams"): `rfs recordings list | cat`, with
// stderr a pipe too (a CI log), gets the rows and the plain lines and no animation, whatever
// FORCE_COLOR says. A real child with real pipes: the checks of io's terminal flags are what is
// under test, so nothing here builds an IO.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs } from '../helpers/child.js';
import { page, problem, recording } from '../helpers/fixtures.js';
import { type ScenarioServer, startScenarioServer } from '../helpers/scenario-server.js';

const KEY = 'service_pk_spinnerPipesKEY_0123456789';
/**
 * What drawing a spinner writes: a carriage return or a cursor or erase sequence (ora's redraw,
 * its hidden cursor) or a frame of the dots spinner. FORCE_COLOR's colours (SGR) are not this.
 */
const DRAWN = /\r|[\u2800-\u28ff]|\u001b\[(?:\?25[lh]|\d*[ABCDGJK])/;

let server: ScenarioServer;
beforeAll(async () => {
  server = await startScenarioServer();
});
afterAll(async () => server?.close());

describe('spinners when stdout and stderr are pipes', () => {
  for (const forceColor of [undefined, '1']) {
    it(`draws none through a retry's wait and a slow page${forceColor ? ' (FORCE_COLOR=1)' : ''}`, async () => {
      const failure = problem(503, 'SERVICE_UNAVAILABLE', 'busy');
      server.queue(
        { ...failure, headers: { ...failure.headers, 'retry-after': '3' } },
        { body: page([recording(1), recording(2)], 'P2', 2) },
        { body: page([recording(3)], null, 1), delayMs: 2500 },
      );
      const env = { HOME: '/nonexistent', RFS_API_KEY: KEY, RFS_BASE_URL: server.url, ...(forceColor ? { FORCE_COLOR: forceColor } : {}) };
      const r = await runRfs(['recordings', 'list', '--all', '--rate', '0', '-o', 'table'], { env, timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n').filter((l) => /rec_|blk_/.test(l)).length).toBeGreaterThanOrEqual(3);
      expect(r.stderr).toMatch(/HTTP 503, the server asked to wait 3 s: waiting 3\.0s before retrying/);
      expect(r.stdout).not.toMatch(DRAWN);
      expect(r.stderr).not.toMatch(DRAWN);
      if (!forceColor) expect(`${r.stdout}${r.stderr}`).not.toContain('\u001b');
      server.verify();
    }, 40_000);
  }
});
