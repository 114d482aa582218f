// The Timestamp schema tries a regular expression before Date.parse, for speed. That is only
// sound if the expression accepts nothing Date.parse refuses: the schema must accept and refuse
// exactly what Date.parse alone would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ISO_INSTANT, Timestamp } from '../../src/shared/schemas.js';

const digits = (n: number, max = 10 ** n - 1) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
// Near-ISO strings: every field may be out of range, so the generator meets the edges
// (month 13, day 32, hour 24, second 60, offset +24:00) as often as valid values.
const nearIso = fc
  .tuple(
    digits(4),
    digits(2, 19),
    digits(2, 39),
    digits(2, 29),
    digits(2, 69),
    digits(2, 69),
    fc.option(fc.string({ unit: fc.constantFrom('0', '1', '5', '9'), minLength: 0, maxLength: 11 }), { nil: undefined }),
    fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), digits(2, 29), digits(2, 69)).map(([s, h, m]) => `${s}${h}:${m}`), fc.constant('')),
  )
  .map(([y, mo, d, h, mi, s, frac, zone]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${frac === undefined ? '' : `.${frac}`}${zone}`);

describe('Timestamp', () => {
  it('the fast expression accepts only what Date.parse accepts', () => {
    fc.assert(
      fc.property(fc.oneof(nearIso, fc.string({ maxLength: 40 })), (s) => {
        if (ISO_INSTANT.test(s)) expect(Number.isNaN(Date.parse(s)), s).toBe(false);
      }),
      { numRuns: 20_000 },
    );
  });

  it('accepts and refuses exactly what Date.parse does', () => {
    fc.assert(
      fc.property(fc.oneof(nearIso, fc.string({ maxLength: 40 })), (s) => {
        expect(Timestamp.safeParse(s).success, s).toBe(!Number.isNaN(Date.parse(s)));
      }),
      { numRuns: 5_000 },
    );
  });

  it('takes the fast path for the timestamps the service writes', () => {
    for (const s of ['2026-11-22T07:45:21.295Z', '2026-11-22T07:45:21Z', '2026-11-22T08:45:21+01:00', '2024-02-29T23:59:59.999999999-05:30']) {
      expect(ISO_INSTANT.test(s), s).toBe(true);
    }
    for (const s of ['2026-13-01T00:00:00Z', '2026-01-32T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:60Z', '2026-01-01 00:00:00Z', 'yesterday']) {
      expect(ISO_INSTANT.test(s), s).toBe(false);
    }
  });
});
