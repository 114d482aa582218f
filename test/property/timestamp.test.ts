// Every ISO 8601 time in rfs is read by one function (src/shared/iso-time.ts). It must agree with
// Date.parse on every instant both accept, and refuse only what is not an instant: a day the
// month does not have (which V8 rolls over into the next month), or a time without a zone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INSTANT, isIsoInstant, parseIsoTime } from '../../src/shared/iso-time.js';
import { Timestamp } from '../../src/shared/schemas.js';

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
    fc.oneof(
      fc.constant('Z'),
      fc.tuple(fc.constantFrom('+', '-'), digits(2, 29), digits(2, 69)).map(([s, h, m]) => `${s}${h}:${m}`),
      fc.constant(''),
    ),
  )
  .map(([y, mo, d, h, mi, s, frac, zone]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${frac === undefined ? '' : `.${frac}`}${zone}`);

const dayExists = (s: string): boolean => {
  const [y, m, d] = [Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10))];
  const last = new Date(0);
  last.setUTCFullYear(y, m, 0); // day 0 of the next month: the last day of this one
  return m >= 1 && m <= 12 && d >= 1 && d <= last.getUTCDate();
};
// 24:00:00 (the end of a day, which Date.parse reads as the next midnight) is refused: RFC 3339
// allows hours 00-23 only, and the service never writes it.
const notEndOfDay = (s: string): boolean => s.slice(11, 13) !== '24';
// At most nanosecond digits in the fraction, then a zone.
const zonedWithShortFraction = (s: string): boolean => /^\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/.test(s.slice(11));

describe('Timestamp', () => {
  it('accepts exactly what the one ISO 8601 reader accepts', () => {
    fc.assert(
      fc.property(fc.oneof(nearIso, fc.string({ maxLength: 40 })), (s) => {
        expect(Timestamp.safeParse(s).success, s).toBe(isIsoInstant(s));
      }),
      { numRuns: 5_000 },
    );
  });

  it('agrees with Date.parse on every instant it accepts', () => {
    fc.assert(
      fc.property(fc.oneof(nearIso, fc.string({ maxLength: 40 })), (s) => {
        const ms = parseIsoTime(s, INSTANT);
        if (ms !== null) expect(ms, s).toBe(Date.parse(s));
      }),
      { numRuns: 20_000 },
    );
  });

  it('refuses of what Date.parse takes only days that do not exist, 24:00 and times without a zone', () => {
    fc.assert(
      fc.property(nearIso, (s) => {
        const dateParse = !Number.isNaN(Date.parse(s));
        expect(isIsoInstant(s), s).toBe(dateParse && zonedWithShortFraction(s) && dayExists(s) && notEndOfDay(s));
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the timestamps the service writes, and refuses impossible ones', () => {
    for (const s of [
      '2026-11-22T07:45:21.295Z',
      '2026-11-22T07:45:21Z',
      '2026-11-22T08:45:21+01:00',
      '2024-02-29T23:59:59.999999999-05:30',
      '2026-11-22',
    ]) {
      expect(isIsoInstant(s), s).toBe(true);
    }
    for (const s of [
      '2025-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-32T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:60Z',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00',
      'yesterday',
    ]) {
      expect(isIsoInstant(s), s).toBe(false);
      expect(Timestamp.safeParse(s).success, s).toBe(false);
    }
  });

  it('reads years before 100 as written, not as 19xx', () => {
    expect(parseIsoTime('0050-06-01T00:00:00Z', INSTANT)).toBe(Date.parse('0050-06-01T00:00:00Z'));
  });
});
