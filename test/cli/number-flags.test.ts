// Every number written on a command line is read by src/core/flags.ts: the global flags, the
// commands' flags and the sandbox's. One grammar (plain decimal), one range check.
import { describe, expect, it } from 'vitest';
import { numberFlag, readNumber, withinRule } from '../../src/core/flags.js';
import { UsageError } from '../../src/core/errors.js';

describe('readNumber', () => {
  it('reads plain decimal numbers, around spaces', () => {
    expect(readNumber(' 42 ', { min: 0, max: 100, integer: true })).toBe(42);
    expect(readNumber('0.25', { min: 0, max: 1 })).toBe(0.25);
    expect(readNumber('.5', { min: 0, max: 1 })).toBe(0.5);
  });

  it.each(['', ' ', '1e2', '0x10', '+5', 'Infinity', 'NaN', '5abc'])('refuses %j, which is not plain decimal', (text) => {
    expect(readNumber(text, { min: -1000, max: 1000 })).toBeUndefined();
  });

  it('refuses fractions where only whole numbers go, and anything outside the range', () => {
    expect(readNumber('2.5', { min: 0, max: 10, integer: true })).toBeUndefined();
    expect(readNumber('11', { min: 0, max: 10, integer: true })).toBeUndefined();
    expect(readNumber('-1', { min: 0, max: 10 })).toBeUndefined();
    expect(readNumber('99999999999999999999', { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true })).toBeUndefined();
  });

  it('checks numbers given in code against the same rule', () => {
    expect(withinRule(3, { min: 1, max: 5, integer: true })).toBe(true);
    expect(withinRule(3.5, { min: 1, max: 5, integer: true })).toBe(false);
    expect(withinRule(Number.NaN, { min: 0, max: 1 })).toBe(false);
  });
});

describe('numberFlag', () => {
  it('passes an absent flag through and names the range of a bad one (exit 2)', () => {
    expect(numberFlag('--max-items', undefined, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true })).toBeUndefined();
    expect(() => numberFlag('--max-items', '0', { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true })).toThrow(
      new UsageError('invalid --max-items "0": expected a whole number, 1 or more'),
    );
    expect(() => numberFlag('--timeout', '1e1', { min: 0.001, max: 3600 })).toThrow(
      new UsageError('invalid --timeout "1e1": expected a number from 0.001 to 3600'),
    );
  });
});
