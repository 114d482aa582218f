// FAILED deliveries of a deleted subscription: the service keeps listing them
// and answers 404 to every replay, so `replay --all-failed` leaves them out and counts them (a
// run can end clean, exit 0), a replay by id says "subscription wh_… was deleted", and the
// dry-run table at 80 columns keeps SUBSCRIPTION (every row is FAILED: STATUS goes first).
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
  h = await sandboxWithFailed(3);
  configDir = mkdtempSync(join(tmpdir(), 'rfs-replay-deleted-'));
});
afterEach(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

async function rfs(args: string[], o: { tty?: boolean } = {}) {
  const t = bufferIO({
    env: { NO_COLOR: '1', RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.sandbox.apiKeys.admin, RFS_BASE_URL: h.sandbox.baseUrl },
    stdoutIsTTY: o.tty,
    columns: 80,
  });
  const code = await runCli(args, t.io, { clock: deliveringTime().clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

async function deleteSubscription(): Promise<void> {
  const res = await fetch(`${h.sandbox.baseUrl}/api/v1/webhooks/${h.subscriptionId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${h.sandbox.apiKeys.admin}` },
  });
  expect(res.status).toBe(204);
  await h.sandbox.control.clearRequests();
}

const replays = async (): Promise<number> =>
  (await h.sandbox.control.requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/replay')).length;

describe('FAILED deliveries of a deleted subscription', () => {
  it('are left out of --all-failed with a count, nothing is sent, exit 0 (on every run)', async () => {
    await deleteSubscription();
    for (let run = 0; run < 2; run++) {
      const r = await rfs(['deliveries', 'replay', '--all-failed', '--yes', '-o', 'ndjson']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `nothing to replay: 3 FAILED deliveries left out: subscription ${h.subscriptionId} was deleted (the service cannot replay them)\n`,
      );
    }
    expect(await replays()).toBe(0);
  });

  it('a replay by id says the subscription was deleted', async () => {
    await deleteSubscription();
    const r = await rfs(['deliveries', 'replay', h.failed[0] ?? '', '-o', 'ndjson']);
    expect(r.code).toBe(8);
    const line = JSON.parse(r.stdout) as { ok: boolean; error: { status: number; title: string } };
    expect(line.ok).toBe(false);
    expect(line.error.status).toBe(404);
    expect(line.error.title).toBe(`subscription ${h.subscriptionId} was deleted: its deliveries cannot be replayed`);
  });

  it('the dry run counts them apart and lists none of them', async () => {
    await deleteSubscription();
    const r = await rfs(['deliveries', 'replay', '--all-failed', '--dry-run', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`3 FAILED deliveries left out: subscription ${h.subscriptionId} was deleted`);
  });

  it('the dry-run table at 80 columns keeps SUBSCRIPTION and leaves out STATUS, which is FAILED on every row', async () => {
    const r = await rfs(['deliveries', 'replay', '--all-failed', '--dry-run', '-o', 'table'], { tty: true });
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    expect(header?.split(/ {2,}/)).toEqual(['ID', 'SUBSCRIPTION', 'ATTEMPTS', 'LAST ANSWER']);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toContain(h.subscriptionId);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});
