// replay --wait reads a delivery's state from two 50-row lists without cursors (wait.ts): absent
// from a FULL list proves nothing, since it may sit beyond row 50. A guard that ignored that
// would call a delivery SUCCEEDED at the first poll; these scripted polls catch it.
import { describe, expect, it } from 'vitest';
import { LIST_LIMIT } from '../../../../src/commands/deliveries/replay/rounds.js';
import { waitForOutcomes } from '../../../../src/commands/deliveries/replay/wait.js';
import type { Delivery } from '../../../../src/shared/schemas.js';
import { fakeTime } from '../../../helpers/clock.js';

const row = (id: string, status: string): Delivery => ({ id, status, subscriptionId: 'wh_1' });
const others = (status: string): Delivery[] => Array.from({ length: LIST_LIMIT }, (_, i) => row(`dlv_other${i}`, status));

/** Answers each poll's two lists from a script, one step per poll; records what was asked. */
function scripted(steps: { PENDING: Delivery[]; FAILED: Delivery[] }[]) {
  const asked: string[] = [];
  let poll = -1;
  return {
    asked,
    list: async (status: 'PENDING' | 'FAILED'): Promise<Delivery[]> => {
      if (status === 'PENDING') poll += 1;
      asked.push(`${poll}:${status}`);
      const step = steps[Math.min(poll, steps.length - 1)];
      if (step === undefined) throw new Error('no step');
      return step[status];
    },
  };
}

describe('replay --wait with full lists', () => {
  it('does not call a delivery SUCCEEDED while the PENDING list, then the FAILED list, is full', async () => {
    const script = scripted([
      { PENDING: others('PENDING'), FAILED: [] },
      { PENDING: [], FAILED: others('FAILED') },
      { PENDING: [], FAILED: [row('dlv_x', 'FAILED')] },
    ]);
    const time = fakeTime();
    const result = await waitForOutcomes(['dlv_x'], 60_000, { list: script.list, clock: time.clock, signal: new AbortController().signal });
    expect(result.outcomes).toEqual([{ id: 'dlv_x', status: 'FAILED', row: row('dlv_x', 'FAILED') }]);
    expect(result.timedOut).toBe(false);
    expect(script.asked).toEqual(['0:PENDING', '0:FAILED', '1:PENDING', '1:FAILED', '2:PENDING', '2:FAILED']);
  });

  it('calls it SUCCEEDED once neither list is full and neither shows it', async () => {
    const script = scripted([
      { PENDING: others('PENDING'), FAILED: [] },
      { PENDING: [row('dlv_y', 'PENDING')], FAILED: [] },
      { PENDING: [], FAILED: [] },
    ]);
    const time = fakeTime();
    const result = await waitForOutcomes(['dlv_x'], 60_000, { list: script.list, clock: time.clock, signal: new AbortController().signal });
    expect(result.outcomes).toEqual([{ id: 'dlv_x', status: 'SUCCEEDED', row: undefined }]);
    expect(script.asked.filter((a) => a.endsWith('PENDING'))).toHaveLength(2);
  });
});
