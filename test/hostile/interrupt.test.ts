// Ctrl-C (the run's AbortSignal) in the middle of the long-running commands, against the
// in-process sandbox: what was printed stays valid output, the summary says what was and was
// not done, and the exit code is 130. A holding proxy makes the interrupted request exact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { page, recording } from '../helpers/fixtures.js';
import { bufferIO } from '../helpers/io.js';
import { startScenarioServer } from '../helpers/scenario-server.js';
import { eventually, start, startReceiver, type Harness } from '../sandbox/helpers.js';
import { startHoldingProxy } from './proxy.js';

const STACK_FRAME = /^\s+at .+(\(|:\d+)/m;

let h: Harness;
let configDir: string;

beforeAll(async () => {
  h = await start({ rateLimit: 0, recordings: 40, deliveryAttempts: 1, deliveryBackoffMs: 10 });
  configDir = mkdtempSync(join(tmpdir(), 'rfs-hostile-int-'));
});
afterAll(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

function cli(argv: string[], base: string, stdin?: string, key = h.keys.admin) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: key, RFS_BASE_URL: base }, stdin });
  const controller = new AbortController();
  return { t, controller, running: runCli(argv, t.io, { signal: controller.signal }) };
}

/** Aborts, and measures how long the command takes to finish after it. */
async function interrupt(run: ReturnType<typeof cli>): Promise<{ code: number; ms: number }> {
  const at = performance.now();
  run.controller.abort();
  const code = await run.running;
  return { code, ms: performance.now() - at };
}

describe('Ctrl-C during recordings list --all', () => {
  it('-o json: the array is closed, the resume cursor printed, and resuming gives exactly the rest', async () => {
    const whole = (await h.api('/recordings?limit=100')).json.data.map((r: { id: string }) => r.id) as string[];
    expect(whole.length).toBeGreaterThan(6);
    // Hold the third page: two pages are printed, then Ctrl-C lands while the third is awaited.
    const proxy = await startHoldingProxy(h.base, (_req, n) => n === 3);
    try {
      const run = cli(['recordings', 'list', '--all', '--limit', '3', '-o', 'json'], proxy.url);
      await eventually(async () => (proxy.requests.some((r) => r.held) ? true : undefined));
      const { code, ms } = await interrupt(run);
      expect(code).toBe(130);
      expect(ms).toBeLessThan(1_000);
      const printed = (JSON.parse(run.t.stdout()) as { id: string }[]).map((r) => r.id);
      expect(printed).toEqual(whole.slice(0, 6));
      const stderr = run.t.stderr();
      expect(stderr.split('\n')[0]).toBe('interrupted (Ctrl-C): stopped before finishing');
      expect(stderr).not.toMatch(STACK_FRAME);
      const cursor = /resume with: --cursor (\S+)/.exec(stderr)?.[1];
      expect(cursor).toBeDefined();
      // The cursor printed is the one of the page that was held.
      expect(proxy.requests.find((r) => r.held)?.url).toContain(`cursor=${cursor}`);

      const rest = cli(['recordings', 'list', '--all', '--limit', '3', '-o', 'ndjson', '--cursor', cursor as string], h.base);
      expect(await rest.running).toBe(0);
      const resumed = rest.t
        .stdout()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      expect([...printed, ...resumed]).toEqual(whole);
    } finally {
      await proxy.close();
    }
  }, 15_000);

  it('-o ndjson: every line printed is whole JSON', async () => {
    const proxy = await startHoldingProxy(h.base, (_req, n) => n === 2);
    try {
      const run = cli(['recordings', 'list', '--all', '--limit', '4', '-o', 'ndjson'], proxy.url);
      await eventually(async () => (proxy.requests.length === 2 ? true : undefined));
      const { code } = await interrupt(run);
      expect(code).toBe(130);
      expect(run.t.stdout().endsWith('\n')).toBe(true);
      expect(
        run.t
          .stdout()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ).toHaveLength(4);
      expect(run.t.stderr()).toMatch(/resume with: --cursor \S+/);
    } finally {
      await proxy.close();
    }
  }, 15_000);

  it('during a Retry-After wait: stops at once, the array closed, with the cursor to resume from', async () => {
    const server = await startScenarioServer();
    try {
      server.queue(
        { body: page([recording(1), recording(2)], 'cursor-of-page-2', 2) },
        {
          status: 503,
          headers: { 'retry-after': '60', 'content-type': 'application/problem+json' },
          body: { title: 'busy', status: 503, code: 'INTERNAL_ERROR' },
        },
      );
      const run = cli(['recordings', 'list', '--all', '--limit', '2', '-o', 'json'], server.url, undefined, 'service_pk_interrupt0000');
      await eventually(async () => (server.requests.length === 2 ? true : undefined));
      await new Promise((r) => setTimeout(r, 100));
      const { code, ms } = await interrupt(run);
      expect(code).toBe(130);
      expect(ms).toBeLessThan(1_000);
      expect((JSON.parse(run.t.stdout()) as { id: string }[]).map((r) => r.id)).toEqual(['rec_0001', 'rec_0002']);
      expect(run.t.stderr()).toContain('resume with: --cursor cursor-of-page-2');
      expect(run.t.stderr()).not.toMatch(STACK_FRAME);
      server.verify();
    } finally {
      await server.close();
    }
  }, 15_000);
});

describe('Ctrl-C during file --from', () => {
  it('says which line was in flight and which were not processed; the sandbox holds exactly the filings reported', async () => {
    const [a, b, c] = (await h.api('/recordings?limit=3')).json.data.map((r: { id: string }) => r.id) as [string, string, string];
    const proxy = await startHoldingProxy(h.base, (req) => req.method === 'POST' && req.url?.includes(encodeURIComponent(b)) === true);
    try {
      const input = `${[a, b, c].map((id) => `{"id":"${id}","externalId":"INT-${id}"}`).join('\n')}\n`;
      const run = cli(['file', '--from', '-', '--provider', 'crm', '-o', 'ndjson'], proxy.url, input);
      await eventually(async () => (proxy.requests.some((r) => r.held) ? true : undefined));
      const { code, ms } = await interrupt(run);
      expect(code).toBe(130);
      expect(ms).toBeLessThan(1_000);
      expect(
        run.t
          .stdout()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ).toEqual([{ line: 1, id: a, ok: true, replayed: false, syncCount: 1 }]);
      expect(run.t.stderr()).toBe(
        '1 filed, 0 failed; interrupted while filing line 2 (it may have been recorded; filing it again is safe, filings are idempotent); lines after 2 were not processed\n',
      );
      const counts = await Promise.all([a, b, c].map(async (id) => (await h.api(`/recordings/${id}`)).json.data.syncCount as number));
      expect(counts).toEqual([1, 0, 0]);

      // Following the summary's advice: from line 2 on, again, directly.
      const rest = cli(['file', '--from', '-', '--provider', 'crm', '-o', 'ndjson'], h.base, input.split('\n').slice(1).join('\n'));
      expect(await rest.running).toBe(0);
      expect(rest.t.stderr()).toBe('2 filed, 0 failed\n');
    } finally {
      await proxy.close();
    }
  }, 15_000);
});

describe('Ctrl-C during deliveries replay --all-failed', () => {
  it('prints valid ndjson for the replays done and lists the deliveries not replayed', async () => {
    const receiver = await startReceiver();
    try {
      receiver.respond(500);
      const created = await h.api('/webhooks', {
        method: 'POST',
        body: { url: receiver.url, events: ['recording.completed'] },
        headers: { 'idempotency-key': 'hostile-interrupt-1' },
      });
      expect(created.status).toBe(201);
      for (let i = 0; i < 3; i++) {
        const rec = await h.control('/recordings', { title: `interrupt ${i}` });
        await h.control(`/recordings/${rec.json.data.id}/status`, { status: 'COMPLETED' });
      }
      const failed = await eventually(async () => {
        const res = await h.api('/webhooks/deliveries?status=FAILED');
        return res.json.data.length >= 3 ? (res.json.data as { id: string }[]).map((d) => d.id) : undefined;
      }, 10_000);
      expect(failed).toHaveLength(3);
      receiver.respond(200);

      // The second replay is held: Ctrl-C lands while it is in flight.
      let replays = 0;
      const proxy = await startHoldingProxy(h.base, (req) => req.url?.endsWith('/replay') === true && ++replays === 2);
      try {
        const run = cli(['deliveries', 'replay', '--all-failed', '--yes', '-o', 'ndjson'], proxy.url);
        await eventually(async () => (proxy.requests.some((r) => r.held) ? true : undefined));
        const { code, ms } = await interrupt(run);
        expect(code).toBe(130);
        expect(ms).toBeLessThan(1_000);
        const [first, second, third] = failed as [string, string, string];
        expect(
          run.t
            .stdout()
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as unknown),
        ).toEqual([{ id: first, ok: true, status: 'PENDING' }]);
        expect(run.t.stderr()).toBe(
          `1 replayed, 0 failed; interrupted while replaying ${second} (it may have been queued); not replayed: ${third}\n`,
        );
        // The held replay never reached the sandbox: the two not replayed are still FAILED.
        const stillFailed = (await h.api('/webhooks/deliveries?status=FAILED')).json.data.map((d: { id: string }) => d.id);
        expect(stillFailed).toEqual(expect.arrayContaining([second, third]));
        expect(stillFailed).not.toContain(first);
      } finally {
        await proxy.close();
      }
    } finally {
      await receiver.close();
    }
  }, 20_000);
});
