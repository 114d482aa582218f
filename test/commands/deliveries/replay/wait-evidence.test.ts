// replay --wait states an outcome only from a row that shows it (cli.md, deliveries, "Evidence,
// not inference"; api/delivery-evidence.ts): SUCCEEDED as soon as a list shows it so, FAILED
// only from a FAILED row whose attempt is later than the replay, and otherwise "not known"
// (with why) at the timeout. Absence from a list, full or not, never makes it SUCCEEDED, and a
// full FAILED list (which an incident always has) never makes it FAILED. Scripted lists; the
// clock is fake.
import { describe, expect, it } from 'vitest';
import { DELIVERY_LIST_ROWS } from '../../../../src/shared/api-limits.js';
import { type Replayed, waitForOutcomes } from '../../../../src/commands/deliveries/replay/wait.js';
import type { Delivery } from '../../../../src/shared/schemas.js';
import { fakeTime } from '../../../helpers/clock.js';

const BEFORE = Date.parse('2026-11-22T13:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const row = (id: string, status: string, at: number): Delivery => ({ id, status, subscriptionId: 'wh_1', lastAttemptAt: iso(at) });
const others = (status: string, at: number): Delivery[] =>
  Array.from({ length: DELIVERY_LIST_ROWS }, (_, i) => row(`dlv_other${String(i).padStart(2, '0')}`, status, at));

type Step = Partial<Record<'SUCCEEDED' | 'FAILED', Delivery[]>>;

/** Answers each poll's lists from a script, one step per poll (a poll starts with SUCCEEDED). */
function scripted(steps: Step[]) {
  const asked: string[] = [];
  let poll = -1;
  return {
    asked,
    list: async (status: 'SUCCEEDED' | 'FAILED', subscriptionId: string | undefined): Promise<Delivery[]> => {
      if (status === 'SUCCEEDED') poll += 1;
      asked.push(`${poll}:${status}:${subscriptionId ?? '*'}`);
      return steps[Math.min(poll, steps.length - 1)]?.[status] ?? [];
    },
  };
}

const replayed = (id: string): Replayed => ({ id, subscriptionId: 'wh_1', before: BEFORE });

async function wait(ids: Replayed[], steps: Step[], timeoutMs = 60_000) {
  const script = scripted(steps);
  const time = fakeTime();
  const result = await waitForOutcomes(ids, timeoutMs, {
    list: script.list,
    clock: time.clock,
    signal: new AbortController().signal,
    spacing: (requests) => requests * 5000,
  });
  return { result, asked: script.asked, time };
}

describe('replay --wait, from evidence', () => {
  it('is SUCCEEDED as soon as a list shows it, though the FAILED list is full and still shows its old failure', async () => {
    const { result, asked } = await wait(
      [replayed('dlv_x')],
      [{ SUCCEEDED: [row('dlv_x', 'SUCCEEDED', BEFORE + 60_000)], FAILED: [row('dlv_x', 'FAILED', BEFORE), ...others('FAILED', BEFORE)] }],
    );
    expect(result.outcomes).toMatchObject([{ id: 'dlv_x', known: true, status: 'SUCCEEDED' }]);
    expect(result.timedOut).toBe(false);
    // Known from the first list: the FAILED list was not asked for.
    expect(asked).toEqual(['0:SUCCEEDED:wh_1']);
  });

  it('is FAILED only from a FAILED row whose attempt is later than the replay', async () => {
    const { result } = await wait(
      [replayed('dlv_x')],
      [{ FAILED: [row('dlv_x', 'FAILED', BEFORE)] }, { FAILED: [row('dlv_x', 'FAILED', BEFORE + 5_000)] }],
    );
    expect(result.outcomes).toMatchObject([{ id: 'dlv_x', known: true, status: 'FAILED' }]);
    expect(result.outcomes[0]).toMatchObject({ fact: { attemptAt: BEFORE + 5_000 } });
  });

  it('never calls one SUCCEEDED because no list shows it, and says "not known" with why at the timeout', async () => {
    const { result, time } = await wait(
      [replayed('dlv_x')],
      [{ SUCCEEDED: others('SUCCEEDED', BEFORE + 1), FAILED: [row('dlv_x', 'FAILED', BEFORE), ...others('FAILED', BEFORE)] }],
      30_000,
    );
    expect(result.timedOut).toBe(true);
    expect(result.outcomes).toEqual([
      { id: 'dlv_x', known: false, why: 'no attempt since the replay shown yet (the lists show its FAILED attempt from before it)' },
    ]);
    expect(time.now - Date.parse('2026-11-22T14:05:00Z')).toBe(30_000);
  });

  it('says a full list may hide it, when no list shows it at all', async () => {
    const { result } = await wait(
      [replayed('dlv_x')],
      [{ SUCCEEDED: others('SUCCEEDED', BEFORE + 1), FAILED: others('FAILED', BEFORE) }],
      10_000,
    );
    expect(result.outcomes[0]).toMatchObject({
      known: false,
      why: expect.stringMatching(/the SUCCEEDED list and the FAILED list came back full/),
    });
  });

  it('says it is still PENDING when neither list is full and neither shows it', async () => {
    const { result } = await wait([replayed('dlv_x')], [{ SUCCEEDED: [], FAILED: [] }], 10_000);
    expect(result.outcomes[0]).toEqual({
      id: 'dlv_x',
      known: false,
      why: 'still PENDING: neither the SUCCEEDED nor the FAILED list shows it',
    });
  });

  it('spaces its polls as the budget asks, from the start of each poll', async () => {
    const { time, asked } = await wait(
      [replayed('dlv_x')],
      [{ SUCCEEDED: [], FAILED: [] }, { SUCCEEDED: [row('dlv_x', 'SUCCEEDED', BEFORE + 1)] }],
    );
    // Two lists in the first poll: 2 × 5000 ms before the second.
    expect(time.waits).toEqual([10_000]);
    expect(asked).toEqual(['0:SUCCEEDED:wh_1', '0:FAILED:wh_1', '1:SUCCEEDED:wh_1']);
  });

  it("lists each replayed delivery's own subscription, and the workspace's lists for one of no known subscription", async () => {
    const { asked } = await wait(
      [replayed('dlv_x'), { id: 'dlv_y', subscriptionId: 'wh_2', before: BEFORE }, { id: 'dlv_z', subscriptionId: '', before: BEFORE }],
      [
        {
          SUCCEEDED: [
            row('dlv_x', 'SUCCEEDED', BEFORE + 1),
            { ...row('dlv_y', 'SUCCEEDED', BEFORE + 1), subscriptionId: 'wh_2' },
            row('dlv_z', 'SUCCEEDED', BEFORE + 1),
          ],
        },
      ],
    );
    // One poll (the script's counter counts SUCCEEDED lists, hence the poll numbers are cut off).
    expect(asked.map((a) => a.replace(/^\d+:/, ''))).toEqual(['SUCCEEDED:*', 'SUCCEEDED:wh_1', 'SUCCEEDED:wh_2']);
  });
});

describe('replay --wait, an outcome from an attempt after the replay', () => {
  it('is never SUCCEEDED from a SUCCEEDED row older than the replay, though the FAILED list showed it failing since', async () => {
    // The FAILED row it was replayed from is 60 s old; a SUCCEEDED row of it 2 h old is an earlier success.
    const failedAt = BEFORE;
    const { result } = await wait(
      [replayed('dlv_x')],
      [{ SUCCEEDED: [row('dlv_x', 'SUCCEEDED', failedAt - 7_200_000)], FAILED: [row('dlv_x', 'FAILED', failedAt)] }],
      10_000,
    );
    expect(result.timedOut).toBe(true);
    expect(result.outcomes).toEqual([
      { id: 'dlv_x', known: false, why: 'no attempt since the replay shown yet (the lists show its FAILED attempt from before it)' },
    ]);
  });

  it('is SUCCEEDED from a SUCCEEDED row after the replay', async () => {
    const later = await wait([replayed('dlv_x')], [{ SUCCEEDED: [row('dlv_x', 'SUCCEEDED', BEFORE + 1_000)] }]);
    expect(later.result.outcomes).toMatchObject([{ id: 'dlv_x', known: true, status: 'SUCCEEDED' }]);
  });
});
