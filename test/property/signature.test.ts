// Properties of the one signature check (src/shared/signature.ts), which the sandbox signs with
// and `verify-signature` / `webhooks listen` judge with: a correct signature verifies, any change
// to the body, the timestamp or the signature is refused, and no input makes it throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign, verifySignature } from '../../src/shared/signature.js';
import { verdict } from '../../src/webhooks/verify.js';

const RUNS = { numRuns: 500 };
const secret = fc.string({ unit: 'binary', minLength: 1, maxLength: 64 });
const body = fc.uint8Array({ maxLength: 512 });
// Whole Unix seconds, ten digits at most (the format signature.ts accepts).
const timestamp = fc.integer({ min: 0, max: 9_999_999_999 });
const HEX = '0123456789abcdef';

/** Any string at all, lone surrogates included: header values and flags are untrusted. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
  fc.constantFrom(
    '',
    ' ',
    'sha256=',
    `sha256=${'0'.repeat(64)}`,
    `sha256=${'g'.repeat(64)}`,
    '1700000000',
    '1700000000000',
    '-1',
    '1e9',
    '0x10',
    '１７００',
  ),
);

function check(s: string, ts: string, sig: string, bytes: Uint8Array) {
  return verifySignature({ secret: s, timestamp: ts, signature: sig, body: bytes, toleranceSeconds: 300, nowSeconds: Number(ts) });
}

describe('verifySignature (property)', () => {
  it('accepts the signature that sign() made, for any secret, body and timestamp', () => {
    fc.assert(
      fc.property(secret, body, timestamp, (s, bytes, ts) => {
        expect(check(s, String(ts), sign(s, ts, bytes), bytes)).toEqual({ valid: true, reason: null, ageSeconds: 0 });
      }),
      RUNS,
    );
  });

  it('refuses the signature when any byte of the body changes', () => {
    fc.assert(
      fc.property(
        secret,
        body.filter((b) => b.length > 0),
        timestamp,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (s, bytes, ts, at, delta) => {
          const signature = sign(s, ts, bytes);
          const changed = Uint8Array.from(bytes);
          const i = at % changed.length;
          changed[i] = ((changed[i] as number) + delta) % 256;
          expect(check(s, String(ts), signature, changed)).toMatchObject({ valid: false, reason: 'mismatch' });
        },
      ),
      RUNS,
    );
  });

  it('refuses the signature when a byte is added to or removed from the body', () => {
    fc.assert(
      fc.property(
        secret,
        body.filter((b) => b.length > 0),
        timestamp,
        fc.integer({ min: 0, max: 255 }),
        (s, bytes, ts, extra) => {
          const signature = sign(s, ts, bytes);
          expect(check(s, String(ts), signature, bytes.subarray(0, -1)).valid).toBe(false);
          expect(check(s, String(ts), signature, Uint8Array.from([...bytes, extra])).valid).toBe(false);
        },
      ),
      RUNS,
    );
  });

  it('refuses the signature when the timestamp changes, even to one within the tolerance', () => {
    fc.assert(
      fc.property(
        secret,
        body,
        timestamp,
        fc.integer({ min: -300, max: 300 }).filter((d) => d !== 0),
        (s, bytes, ts, delta) => {
          const other = ts + delta;
          fc.pre(other >= 0 && other <= 9_999_999_999);
          const result = verifySignature({
            secret: s,
            timestamp: String(other),
            signature: sign(s, ts, bytes),
            body: bytes,
            toleranceSeconds: 300,
            nowSeconds: ts,
          });
          expect(result).toMatchObject({ valid: false, reason: 'mismatch' });
        },
      ),
      RUNS,
    );
  });

  it('refuses the signature when any hex digit changes to another value (in either case)', () => {
    fc.assert(
      fc.property(
        secret,
        body,
        timestamp,
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 15 }),
        fc.boolean(),
        (s, bytes, ts, at, delta, upper) => {
          const hex = sign(s, ts, bytes).slice('sha256='.length);
          const digit = HEX[(HEX.indexOf(hex[at] as string) + delta) % 16] as string;
          let changed = hex.slice(0, at) + digit + hex.slice(at + 1);
          if (upper) changed = changed.toUpperCase();
          expect(check(s, String(ts), `sha256=${changed}`, bytes)).toMatchObject({ valid: false, reason: 'mismatch' });
        },
      ),
      RUNS,
    );
  });

  it('refuses the signature made with another secret', () => {
    fc.assert(
      fc.property(secret, secret, body, timestamp, (a, b, bytes, ts) => {
        // Two secrets whose UTF-8 bytes are the same are the same key.
        fc.pre(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')) !== 0);
        expect(check(b, String(ts), sign(a, ts, bytes), bytes).valid).toBe(false);
      }),
      RUNS,
    );
  });

  it('never throws, and accepts only the correct signature within the tolerance, for any input at all', () => {
    const number = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 300),
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.option(anyText, { nil: undefined }),
        fc.option(anyText, { nil: undefined }),
        body,
        number,
        number,
        (s, ts, sig, bytes, toleranceSeconds, nowSeconds) => {
          const result = verifySignature({ secret: s, timestamp: ts, signature: sig, body: bytes, toleranceSeconds, nowSeconds });
          expect(['mismatch', 'stale', 'malformed', 'missing', null]).toContain(result.reason);
          expect(result.valid).toBe(result.reason === null);
          if (result.valid) {
            const t = (ts as string).trim();
            expect((sig as string).trim().toLowerCase()).toBe(sign(s, t, bytes));
            expect(Math.abs(Math.trunc(nowSeconds) - Number(t))).toBeLessThanOrEqual(toleranceSeconds);
          }
          // The explanation layer shares the property: never throws, never shows the expected value.
          const v = verdict({ secret: s, timestamp: ts, signature: sig, body: bytes, toleranceSeconds, nowSeconds, source: 'request' });
          expect(v.valid).toBe(result.valid);
          expect(v.explanation).not.toContain(sign(s, ts?.trim() ?? '', bytes).slice(7));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('refuses a correct signature when the clock or the tolerance is not a number (fails closed)', () => {
    fc.assert(
      fc.property(
        secret,
        body,
        timestamp,
        fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
        fc.boolean(),
        (s, bytes, ts, bad, clockIsBad) => {
          const result = verifySignature({
            secret: s,
            timestamp: String(ts),
            signature: sign(s, ts, bytes),
            body: bytes,
            toleranceSeconds: clockIsBad ? 300 : Number.NaN,
            nowSeconds: clockIsBad ? bad : ts,
          });
          expect(result.valid).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
