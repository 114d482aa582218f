import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { formatLocalTime, parseWhen } from '../../src/output/time.js';

const NOW = Date.parse('2026-11-22T14:05:30.000Z');

describe('formatLocalTime', () => {
  test('shows a timestamp compactly in the given time zone', () => {
    expect(formatLocalTime('2026-11-22T14:05:59.999Z', { timeZone: 'UTC' })).toBe('2026-11-22 14:05');
    expect(formatLocalTime('2026-11-22T14:05:00Z', { timeZone: 'Asia/Kolkata' })).toBe('2026-11-22 19:35');
    expect(formatLocalTime('2026-11-22T23:30:00Z', { timeZone: 'America/New_York' })).toBe('2026-11-22 18:30');
  });

  test('shows midnight as 00, not 24', () => {
    expect(formatLocalTime('2026-01-01T00:07:00Z', { timeZone: 'UTC' })).toBe('2026-01-01 00:07');
  });

  test('uses the local time zone by default', () => {
    const d = new Date('2026-06-01T08:09:00Z');
    const pad = (n: number): string => String(n).padStart(2, '0');
    const local = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
    expect(formatLocalTime('2026-06-01T08:09:00Z')).toBe(local);
  });

  test('gives an empty cell for null and the sanitised text for a non-timestamp', () => {
    expect(formatLocalTime(null)).toBe('');
    expect(formatLocalTime(undefined)).toBe('');
    expect(formatLocalTime('soon\x1b[2J')).toBe('soon\\x1b[2J');
  });
});

describe('parseWhen', () => {
  test.each([
    ['90s', '2026-11-22T14:04:00.000Z'],
    ['15m', '2026-11-22T13:50:30.000Z'],
    ['24h', '2026-11-21T14:05:30.000Z'],
    ['7d', '2026-11-15T14:05:30.000Z'],
    ['0s', '2026-11-22T14:05:30.000Z'],
  ])('turns the duration %s into the time that long before now', (input, expected) => {
    expect(parseWhen(input, NOW)).toBe(expected);
  });

  test('reads a date, or a date-time without an offset, as local time', () => {
    expect(parseWhen('2026-11-01', NOW)).toBe(new Date(2026, 10, 1).toISOString());
    expect(parseWhen('2026-11-01T10:30', NOW)).toBe(new Date(2026, 10, 1, 10, 30).toISOString());
    expect(parseWhen('2026-11-01 10:30:15,5', NOW)).toBe(new Date(2026, 10, 1, 10, 30, 15, 500).toISOString());
  });

  test('accepts a Date for now', () => {
    expect(parseWhen('1h', new Date(NOW))).toBe('2026-11-22T13:05:30.000Z');
  });

  test.each([
    ['2026-11-01T10:00:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T10:00:00.250Z', '2026-11-01T10:00:00.250Z'],
    ['2026-11-01T10:00:00+02:00', '2026-11-01T08:00:00.000Z'],
    ['2026-11-01T10:00:00-0530', '2026-11-01T15:30:00.000Z'],
    ['  2026-11-01t10:00:00z ', '2026-11-01T10:00:00.000Z'],
  ])('accepts the ISO 8601 timestamp %s', (input, expected) => {
    expect(parseWhen(input, NOW)).toBe(expected);
  });

  test.each([
    'yesterday',
    '7',
    '7w',
    '-5m',
    '1.5h',
    'March 7',
    '2026-02-30',
    '2026-13-01',
    '2026-11-01T25:00:00Z',
    '',
    '99999999999d',
    '999999999d',
  ])('refuses %j with a usage error naming the accepted forms', (input) => {
    let caught: unknown;
    try {
      parseWhen(input, NOW);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).exitCode).toBe(2);
    expect((caught as UsageError).message).toContain('--updated-since');
    expect((caught as UsageError).message).toContain('ISO 8601');
    expect((caught as UsageError).message).toContain('90s, 15m, 24h, 7d');
  });

  test('names the flag it was given and never echoes control characters', () => {
    expect(() => parseWhen('x\x1b[2J', NOW, '--since')).toThrow('invalid --since value "x\\x1b[2J"');
  });
});
