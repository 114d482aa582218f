// The rounds of replay --all-failed (src/commands/deliveries/replay/rounds.ts) over scripted
// listings: never one delivery twice in a run, and a summary that says whether more may remain.
import { describe, expect, it } from 'vitest';
import { FailedRounds } from '../../../../src/commands/deliveries/replay/rounds.js';
import type { Delivery } from '../../../../src/shared/schemas.js';

const rows = (from: number, to: number): Delivery[] =>
  Array.from({ length: to - from }, (_, i) => ({ id: `dlv_${from + i}`, status: 'FAILED' }) as Delivery);

async function drain(r: FailedRounds): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of r.items()) ids.push(item.id);
  return ids;
}

const scripted = (...listings: Delivery[][]) => {
  const calls = { n: 0 };
  return { calls, list: async () => listings[calls.n++] ?? [] };
};

describe('FailedRounds', () => {
  it('never hands out a delivery twice, even when it is FAILED again in the next list', async () => {
    const { list } = scripted([...rows(0, 10), ...rows(50, 60)], rows(0, 10));
    const r = new FailedRounds(rows(0, 50), list, undefined, new AbortController().signal);
    const ids = await drain(r);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    expect(r.rounds).toBe(2);
    expect(r.describe()).toBe('2 rounds; no FAILED delivery is left that this run has not replayed');
  });

  it('says more may remain when a full list shows only deliveries already replayed, and only what it showed', async () => {
    const { list } = scripted(rows(0, 50));
    const r = new FailedRounds(rows(0, 50), list, undefined, new AbortController().signal);
    expect(await drain(r)).toHaveLength(50);
    expect(r.describe()).toBe(
      '1 round; more may remain: the FAILED list came back full (50 rows, the most the API lists) and showed no FAILED delivery that this run had not replayed; older ones may sit behind it',
    );
  });

  it('names the full lists the listing says, and what it was narrowed to; none full: nothing matching is left', async () => {
    // A filtered listing is shorter than the lists it was drawn from: the lists themselves say they were full.
    const full = new Set<readonly Delivery[]>();
    const again = rows(0, 3);
    full.add(again);
    const r = new FailedRounds(
      rows(0, 3),
      async () => again,
      undefined,
      new AbortController().signal,
      undefined,
      (listing) => (full.has(listing) ? ['the FAILED list of wh_a', 'the FAILED list of wh_b'] : []),
      'matching --error "503"',
    );
    expect(await drain(r)).toHaveLength(3);
    expect(r.end).toEqual({ how: 'list-full', lists: ['the FAILED list of wh_a', 'the FAILED list of wh_b'] });
    expect(r.describe()).toBe(
      '1 round; more may remain: the FAILED list of wh_a and the FAILED list of wh_b came back full (50 rows, the most the API lists) and showed no FAILED delivery matching --error "503" that this run had not replayed; older ones may sit behind them',
    );

    // A listing of 50 rows whose lists were not full (the lists of several subscriptions) is not "full".
    const fifty = rows(0, 50);
    const none = new FailedRounds(
      fifty,
      async () => fifty,
      undefined,
      new AbortController().signal,
      undefined,
      () => [],
      'matching --error "503"',
    );
    expect(await drain(none)).toHaveLength(50);
    expect(none.describe()).toBe('1 round; no FAILED delivery matching --error "503" is left that this run has not replayed');
  });

  it('stops at --max without listing again; "may" when the list it came from was used up and not full', async () => {
    const { list, calls } = scripted(rows(100, 120));
    const r = new FailedRounds(rows(0, 5), list, 5, new AbortController().signal);
    expect(await drain(r)).toEqual(['dlv_0', 'dlv_1', 'dlv_2', 'dlv_3', 'dlv_4']);
    expect(calls.n).toBe(0);
    expect(r.describe()).toBe('1 round; stopped at --max 5: more may remain');
  });

  it('names the deliveries of the current round not handed out when the batch stops early', async () => {
    const r = new FailedRounds(rows(0, 4), scripted().list, undefined, new AbortController().signal);
    for await (const item of r.items()) if (item.n === 2) break;
    expect(r.notReplayed()).toEqual(['dlv_2', 'dlv_3']);
    expect(r.describe()).toBeUndefined();
  });

  it('ends the rounds when listing again fails, keeping the error for the report', async () => {
    const boom = new Error('HTTP 503');
    const r = new FailedRounds(
      rows(0, 50),
      async () => {
        throw boom;
      },
      undefined,
      new AbortController().signal,
    );
    expect(await drain(r)).toHaveLength(50);
    expect(r.end).toEqual({ how: 'list-failed', error: boom });
  });
});
