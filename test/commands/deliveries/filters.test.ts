// --since, --until and --error (cli.md, deliveries, "Time and error filters"):
// read as `recordings list --updated-since` reads times, applied to a delivery's last attempt
// and last error.
import { describe, expect, it } from 'vitest';
import { incompleteNotice, oldestText } from '../../../src/commands/deliveries/bounds.js';
import { matchesDeliveryFilter, readDeliveryFilter } from '../../../src/commands/deliveries/filters.js';
import type { Delivery } from '../../../src/shared/schemas.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const d = (minutesAgo: number | null, o: { status?: number | null; error?: string | null } = {}): Delivery =>
  ({
    id: 'dlv_1',
    lastAttemptAt: minutesAgo === null ? null : new Date(NOW - minutesAgo * 60_000).toISOString(),
    lastResponseStatus: o.status ?? null,
    lastError: o.error ?? null,
  }) as Delivery;

describe('delivery filters', () => {
  it('reads durations back from the clock and ISO 8601 times', () => {
    expect(readDeliveryFilter({ since: '30m', until: '2026-11-27T11:55:00Z' }, NOW)).toEqual({
      since: NOW - 30 * 60_000,
      until: NOW - 5 * 60_000,
    });
    expect(readDeliveryFilter({ since: '3d' }, NOW).since).toBe(NOW - 3 * 86_400_000);
  });

  it('refuses a bad time, a window that ends before it starts, and a blank --error (exit 2)', () => {
    expect(() => readDeliveryFilter({ since: 'yesterday' }, NOW)).toThrow('invalid --since value "yesterday"');
    expect(() => readDeliveryFilter({ until: '5x' }, NOW)).toThrow('invalid --until value');
    expect(() => readDeliveryFilter({ since: '1h', until: '2h' }, NOW)).toThrow('--since is later than --until');
    expect(() => readDeliveryFilter({ error: '  ' }, NOW)).toThrow('--error is blank');
  });

  it('selects by the last attempt, both ends included; a delivery never attempted matches no time', () => {
    const f = readDeliveryFilter({ since: '30m', until: '10m' }, NOW);
    expect([d(30), d(20), d(10), d(31), d(9), d(null)].map((x) => matchesDeliveryFilter(x, f))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('matches --error in the last error or the status, in any letter case', () => {
    const f = (error: string) => readDeliveryFilter({ error }, NOW);
    expect(matchesDeliveryFilter(d(1, { status: 503, error: 'HTTP 503' }), f('503'))).toBe(true);
    expect(matchesDeliveryFilter(d(1, { status: 503, error: null }), f('http 503'))).toBe(true);
    expect(matchesDeliveryFilter(d(1, { error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' }), f('econnrefused'))).toBe(true);
    expect(matchesDeliveryFilter(d(1, { status: 500, error: 'HTTP 500' }), f('503'))).toBe(false);
    expect(matchesDeliveryFilter(d(null), f('503'))).toBe(false);
  });
});

describe('bounds', () => {
  it('shows an oldest attempt of a full list as a bound', () => {
    const iso = new Date(NOW - 8000).toISOString();
    expect(oldestText(iso, true, NOW)).toBe('before 8s ago');
    expect(oldestText(iso, false, NOW)).toBe('8s ago');
    expect(oldestText(null, true, NOW)).toBe('');
  });

  it('says a filtered result may be incomplete only when a list came back full', () => {
    const f = readDeliveryFilter({ error: '503' }, NOW);
    expect(incompleteNotice(f, [])).toBeUndefined();
    expect(incompleteNotice({}, ['the FAILED list'])).toBeUndefined();
    expect(incompleteNotice(f, ['the FAILED list'])).toBe(
      'may be incomplete: the FAILED list came back full (50 rows, the most the API lists), so older deliveries matching --error "503" may not be shown',
    );
  });
});
