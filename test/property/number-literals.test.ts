// lossyNumbers looks for a number that would not print back as sent only where a pre-filter
// finds a candidate at the start of a number token; it must never miss one. Checked against a
// reference that parses every token of the text, on JSON texts whose numbers are written in any
// form JSON allows (trailing zeros, exponents, -0, many digits) and whose strings hold digits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lossyNumbers } from '../../src/core/number-literals.js';

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const intPart = fc.oneof(
  fc.constant('0'),
  fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 20)).map(([a, b]) => `${a}${b}`),
);
const literal = fc
  .tuple(
    fc.boolean(),
    intPart,
    fc.option(digits(1, 20), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)), { nil: undefined }),
  )
  .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : exp.join('')}`);

/** A JSON text of objects and arrays with these literals for numbers and digit-laden strings. */
const text: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    literal,
    fc.string().map((s) => JSON.stringify(s)),
    tie('object'),
    tie('array'),
  ),
  object: fc
    .array(fc.tuple(fc.string(), tie('value'), fc.constantFrom('', ' ', '\n  ')), { maxLength: 5 })
    .map((entries) => `{${entries.map(([k, v, ws]) => `${ws}${JSON.stringify(k)}:${ws}${v}`).join(',')}}`),
  array: fc
    .array(fc.tuple(tie('value'), fc.constantFrom('', ' ')), { maxLength: 5 })
    .map((items) => `[${items.map(([v, ws]) => `${ws}${v}`).join(',')}]`),
})).object as fc.Arbitrary<string>;

/** Every number token of the text, strings skipped. */
function anyLossy(json: string): boolean {
  for (const m of json.matchAll(/"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*/g)) {
    const token = m[0];
    if (!token.startsWith('"') && JSON.stringify(Number(token)) !== token) return true;
  }
  return false;
}

describe('lossyNumbers', () => {
  it('finds a number that does not print back whenever there is one (property)', () => {
    fc.assert(
      fc.property(text, (json) => {
        JSON.parse(json);
        expect(lossyNumbers(json).length > 0).toBe(anyLossy(json));
      }),
      { numRuns: 3000 },
    );
  });

  it('is not fooled by strings that look like numbers', () => {
    const literals = (json: string) => lossyNumbers(json).map((l) => l.literal);
    expect(literals('{"id":"rec_4e7x","n":"1.50","big":"12345678901234567","v":3}')).toEqual([]);
    expect(literals('{"id":"rec_4e7x","v":1.50}')).toEqual(['1.50']);
    expect(literals('{"a":[ -0 ]}')).toEqual(['-0']);
    expect(literals('{"a":100000.00000000027}')).toEqual(['100000.00000000027']);
  });
});
