// Properties of the sandbox's signed keyset cursors (src/sandbox/cursor.ts): decoding any string
// never throws and accepts only what the encoder produced, for the same query, before expiry;
// changing any one character of a real cursor makes it refused.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/sandbox/cursor.js';

const NOW = Date.parse('2026-11-22T14:05:00Z');
const TTL = 60 * 60 * 1000;
const QUERY = 'ws_1|/recordings|status=COMPLETED|syncState=unsynced';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const codec = new CursorCodec(randomBytes(32), TTL, () => NOW);

// Ids as the sandbox makes them, and arbitrary well-formed text (a cursor holds at most 512
// characters, so an id beyond about 340 UTF-8 bytes cannot be carried; ids are far shorter).
const id = fc.oneof(
  fc.stringMatching(/^rec_[0-9a-z]{8,24}$/),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((s) => Buffer.byteLength(s) <= 300),
);
const createdAt = fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
const position = fc.record({ createdAt, id });

const anyToken = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 600 }),
  fc.string({ unit: fc.constantFrom(...B64URL), maxLength: 600 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 100 }),
  fc.uint8Array({ minLength: 0, maxLength: 400 }).map((b) => Buffer.from(b).toString('base64url')),
  fc.uint8Array({ minLength: 0, maxLength: 400 }).map((b) => Buffer.from(b).toString('base64')),
);

describe('sandbox cursors (property)', () => {
  it('give back the position they were made from, for the same query', () => {
    fc.assert(
      fc.property(position, (p) => {
        expect(codec.decode(codec.encode(p, QUERY), QUERY)).toEqual(p);
      }),
      { numRuns: 500 },
    );
  });

  it('never throw, and refuse any string the encoder did not make', () => {
    fc.assert(
      fc.property(anyToken, fc.string({ maxLength: 40 }), (token, query) => {
        expect(codec.decode(token, query)).toBeNull();
        expect(codec.decode(token, QUERY)).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it('are refused when any one character is changed', () => {
    fc.assert(
      fc.property(position, fc.nat(), fc.integer({ min: 1, max: 63 }), (p, at, shift) => {
        const cursor = codec.encode(p, QUERY);
        const i = at % cursor.length;
        const changed = B64URL[(B64URL.indexOf(cursor[i] as string) + shift) % 64] as string;
        expect(codec.decode(cursor.slice(0, i) + changed + cursor.slice(i + 1), QUERY)).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it('are refused when cut short, extended or padded', () => {
    fc.assert(
      fc.property(
        position,
        fc.integer({ min: 1, max: 8 }),
        fc.string({ unit: fc.constantFrom(...B64URL, '=', '.', ' ', '\n', '+', '/'), minLength: 1, maxLength: 4 }),
        (p, cut, extra) => {
          const cursor = codec.encode(p, QUERY);
          expect(codec.decode(cursor.slice(0, -cut), QUERY)).toBeNull();
          expect(codec.decode(cursor + extra, QUERY)).toBeNull();
          expect(codec.decode(extra + cursor, QUERY)).toBeNull();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('are refused for another query, by another sandbox, and after they expire', () => {
    const other = new CursorCodec(randomBytes(32), TTL, () => NOW);
    const later = new CursorCodec(Buffer.alloc(32, 7), TTL, () => NOW + TTL + 1);
    const sameSecret = new CursorCodec(Buffer.alloc(32, 7), TTL, () => NOW);
    fc.assert(
      fc.property(
        position,
        fc.string({ maxLength: 40 }).filter((q) => q !== QUERY),
        (p, query) => {
          const cursor = codec.encode(p, QUERY);
          expect(codec.decode(cursor, query)).toBeNull();
          expect(other.decode(cursor, QUERY)).toBeNull();
          const expiring = sameSecret.encode(p, QUERY);
          expect(sameSecret.decode(expiring, QUERY)).toEqual(p);
          expect(later.decode(expiring, QUERY)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});
