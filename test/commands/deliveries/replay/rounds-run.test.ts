// deliveries replay --all-failed past the list's 50 rows (cli.md, deliveries):
// 70 FAILED deliveries in a real sandbox, each replayed exactly once (its request log), in rounds
// that the summary counts, paced by the client, with --max. The CLI's clock is fake: the pacing
// waits it chooses are recorded, never slept.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { bufferIO } from '../../../helpers/io.js';
import { deliveringTime, sandboxWithFailed, type FailedSandbox } from '../support.js';

let h: FailedSandbox;
let configDir: string;

beforeEach(async () => {
  h = await sandboxWithFailed(70);
  configDir = mkdtempSync(join(tmpdir(), 'rfs-replay-rounds-'));
});
afterEach(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

async function replay(args: string[]) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.sandbox.apiKeys.admin, RFS_BASE_URL: h.sandbox.baseUrl } });
  const time = deliveringTime();
  const code = await runCli(['deliveries', 'replay', ...args], t.io, { clock: time.clock });
  const lines = t
    .stdout()
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { id: string; ok: boolean; finalStatus?: string | null; why?: string });
  return { code, lines, stderr: t.stderr(), time };
}

async function replayRequests(): Promise<string[]> {
  const log = await h.sandbox.control.requests();
  return log.filter((r) => r.method === 'POST' && r.path.endsWith('/replay')).map((r) => decodeURIComponent(r.path.split('/')[5] ?? ''));
}

const listings = async (): Promise<number> =>
  (await h.sandbox.control.requests()).filter((r) => r.method === 'GET' && r.path === '/api/v1/webhooks/deliveries').length;

describe('deliveries replay --all-failed past 50', () => {
  it('replays all 70 FAILED deliveries exactly once, in 2 rounds, and says none is left', async () => {
    h.receiver.answer = () => 200;
    const { code, lines, stderr, time } = await replay(['--all-failed', '--yes', '-o', 'ndjson']);
    expect(code).toBe(0);
    const replayed = await replayRequests();
    expect(replayed).toHaveLength(70);
    expect(new Set(replayed)).toEqual(new Set(h.failed));
    expect(lines.map((l) => l.id).sort()).toEqual([...h.failed].sort());
    expect(lines.every((l) => l.ok)).toBe(true);
    // Round 1: the workspace's list (50 rows, full), so its one subscription's own list too (a
    // full list is listed again per subscription); round 2 (the 20 older ones); and one more list
    // that shows nothing new.
    expect(await listings()).toBe(4);
    expect(stderr).toContain('70 replayed, 0 failed; 2 rounds; no FAILED delivery is left that this run has not replayed\n');
    // 73 requests at 120 a minute with a burst of 10: the client's pacer waited, on the fake clock.
    expect(time.waits.filter((ms) => ms > 0).length).toBeGreaterThan(50);
  });

  it('stops at --max and says more remain', async () => {
    h.receiver.answer = () => 200;
    const { code, lines, stderr } = await replay(['--all-failed', '--yes', '--max', '60', '-o', 'ndjson']);
    expect(code).toBe(0);
    const replayed = await replayRequests();
    expect(replayed).toHaveLength(60);
    expect(new Set(replayed).size).toBe(60);
    expect(lines).toHaveLength(60);
    expect(stderr).toContain('60 replayed, 0 failed; 2 rounds; stopped at --max 60: more remain\n');
  });

  it('with --dry-run lists the first 50 and sends nothing', async () => {
    const { code, stderr } = await replay(['--all-failed', '--dry-run', '-o', 'ndjson']);
    expect(code).toBe(0);
    expect(await replayRequests()).toEqual([]);
    expect(stderr).toContain('50 FAILED deliveries would be replayed (dry run: nothing sent)');
  });

  it('with --dry-run and a filter behind the full list asks each list once, GET /webhooks included', async () => {
    const { code, stderr } = await replay(['--all-failed', '--dry-run', '--since', '1d', '-o', 'ndjson']);
    expect(code).toBe(0);
    expect(stderr).toContain('FAILED deliveries would be replayed (dry run: nothing sent)');
    const gets = (await h.sandbox.control.requests()).filter((r) => r.method === 'GET').map((r) => `${r.path}?${r.query}`);
    // The FAILED list, GET /webhooks, then the FAILED list of each subscription: none twice.
    expect(gets.filter((g) => g.startsWith('/api/v1/webhooks?'))).toHaveLength(1);
    expect(gets.some((g) => g.includes('subscriptionId='))).toBe(true);
    expect(new Set(gets).size).toBe(gets.length);
    expect(await replayRequests()).toEqual([]);
  });

  it('--wait after --all-failed of 70: SUCCEEDED for the 50 a list shows, "not known" (why: a full list) for the 20 behind it, exit 8', async () => {
    h.receiver.answer = () => 200;
    const { code, lines, stderr } = await replay(['--all-failed', '--yes', '--wait', '--wait-timeout', '30', '-o', 'ndjson']);
    const finals = lines.filter((l) => l.finalStatus !== undefined);
    expect(finals).toHaveLength(70);
    expect(new Set(finals.map((l) => l.id))).toEqual(new Set(h.failed));
    // The SUCCEEDED list holds 50 rows and has no cursor: the other 20 never show in a list, so
    // rfs cannot say they SUCCEEDED (cli.md, "Evidence, not inference"), though they did.
    const succeeded = finals.filter((l) => l.finalStatus === 'SUCCEEDED' && l.ok);
    const unknown = finals.filter((l) => l.finalStatus === null && !l.ok);
    expect(succeeded).toHaveLength(50);
    expect(unknown).toHaveLength(20);
    for (const l of unknown) expect(l.why).toMatch(/^no list has shown it since the replay \(the SUCCEEDED list came back full/);
    expect(stderr).toMatch(/waited \d+ s: 50 SUCCEEDED, 0 FAILED again; 20 not known after 30 s \(--wait-timeout\)/);
    expect(code).toBe(8);
    expect((await h.sandbox.control.stats()).deliveries.succeeded).toBe(70);
  });
});
