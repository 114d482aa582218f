// snapshots had no cap (300 of 50,000 recordings: 109 MB → 3.57 GB). At most
// MAX_SNAPSHOTS are kept; a new name beyond that is refused with 409, never made by dropping
// the oldest (a suite's baseline, saved first, must stay).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxControlError } from '../../src/sandbox/index.js';
import { MAX_SNAPSHOTS } from '../../src/sandbox/snapshots.js';
import { start, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await start({ rateLimit: 0, recordings: 3 });
});
afterAll(() => h.close());

describe('snapshots are capped', () => {
  it(`keeps ${MAX_SNAPSHOTS}, refuses a new name beyond them with 409, and takes one again once one is deleted`, async () => {
    expect(MAX_SNAPSHOTS).toBe(20);
    for (let i = 0; i < MAX_SNAPSHOTS; i++) expect((await h.control('/snapshots', { name: `s${i}` })).status).toBe(201);
    const refused = await h.control('/snapshots', { name: 'one-too-many' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'SNAPSHOT_LIMIT_EXCEEDED', status: 409 });
    expect(refused.json.detail).toContain('DELETE /_sandbox/snapshots/:name');
    expect((await h.control('/snapshots/one-too-many/restore', {})).status).toBe(404);

    // A name already taken is replaced, not counted again; the first one is still there.
    expect((await h.control('/snapshots', { name: 's5' })).status).toBe(201);
    expect((await h.control('/snapshots/s0/restore', {})).status).toBe(204);

    expect((await h.control('/snapshots/s3', undefined, 'DELETE')).status).toBe(204);
    expect((await h.control('/snapshots/s3', undefined, 'DELETE')).status).toBe(404);
    expect((await h.control('/snapshots/s3/restore', {})).status).toBe(404);
    expect((await h.control('/snapshots', { name: 'one-too-many' })).status).toBe(201);
  });

  it('is said by the control client as a SandboxControlError, and deleteSnapshot frees a place', async () => {
    const control = h.sandbox.control;
    const error = await control.saveSnapshot('another').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxControlError);
    expect((error as SandboxControlError).status).toBe(409);
    await control.deleteSnapshot('s1');
    await control.saveSnapshot('another');
    await control.restoreSnapshot('another');
  });
});
