// The README's example: rfs-cli/sandbox under an integrator's own vitest suite. rfs's own suite runs it
// (vitest.config.ts includes examples/), importing 'rfs-cli/sandbox' by its name through package.json
// `exports`, as an integrator's code does, so the example can never go stale.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from 'rfs-cli/sandbox';

let sandbox: RunningSandbox;

// Your integration's own call; here a plain fetch stands in for it.
async function fileRecording(id: string, externalId: string) {
  const res = await fetch(`${sandbox.baseUrl}/api/v1/recordings/${id}/filings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.apiKeys.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'my-dms', externalId }),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 'my-suite', recordings: 10, rateLimit: 0 });
  await sandbox.control.saveSnapshot('clean');
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  // Every test starts from the same state, in milliseconds.
  await sandbox.control.restoreSnapshot('clean');
  await sandbox.control.clearRequests();
  await sandbox.control.setFaults({ rate: 0 });
});

describe('filing', () => {
  it('files once even when the answer is lost after the filing was stored', async () => {
    const recording = await sandbox.control.createRecording({ title: 'Deposition', status: 'COMPLETED' });
    await sandbox.control.setFaults({ script: [{ match: '/filings', method: 'POST', kind: 'error-after', times: 1 }] });

    expect((await fileRecording(recording.id, 'DOC-1')).status).toBe(500);
    const retry = await fileRecording(recording.id, 'DOC-1');
    expect(retry.status).toBe(200);
    expect(retry.body.meta.replayed).toBe(true);
    expect(retry.body.data.syncCount).toBe(1);

    const posts = (await sandbox.control.requests()).filter((r) => r.method === 'POST');
    expect(posts.map((r) => [r.path, r.status, r.fault])).toEqual([
      [`/api/v1/recordings/${recording.id}/filings`, 500, 'error-after'],
      [`/api/v1/recordings/${recording.id}/filings`, 200, null],
    ]);
  });

  it('starts each test from the snapshot', async () => {
    expect(await sandbox.control.requests()).toEqual([]);
    const state = await sandbox.control.exportState();
    expect(state.changedRecordings).toEqual([]);
  });
});
