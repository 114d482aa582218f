// Properties of the terminal sanitiser (src/output/sanitize.ts): whatever the server sends, what
// reaches a terminal holds no character that could drive it — no C0 or C1 control, no DEL, no
// ESC, no bidi override or isolate, no lone surrogate, no invisible character (
// zero-width, BOM, soft hyphen, tag characters…) — and text without them is left alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitize, sanitizeDeep } from '../../src/core/sanitize.js';

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
// Weighted towards the dangerous ranges, so that each run meets many of them.
const hostileUnit = fc.oneof(
  fc.integer({ min: 0, max: 0x20 }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0xa0 }).map((c) => String.fromCharCode(c)),
  fc.constantFrom(
    '\u200e',
    '\u200f',
    '\u061c',
    '\u202a',
    '\u202b',
    '\u202c',
    '\u202d',
    '\u202e',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\x1b[31m',
    '\x1b]0;pwned\x07',
    '\r\n',
    '\ud800',
    '\udfff',
    '\ud83d\ude00',
  ),
  codeUnit,
);
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: codeUnit, maxLength: 200 }),
  fc.string({ unit: hostileUnit, maxLength: 100 }),
);

/** Every code unit that must never reach the terminal raw; `keep` lists the allowed exceptions. */
function unsafeUnits(text: string, keep: ReadonlySet<number>): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
    const bidi = (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c;
    // Shown as nothing, or as a blank like a space: two ids must not look the same.
    const invisible =
      [0x00ad, 0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180e, 0x3164, 0xfeff, 0xffa0].includes(c) ||
      (c >= 0x200b && c <= 0x200d) ||
      (c >= 0x2028 && c <= 0x2029) ||
      (c >= 0x2060 && c <= 0x2064) ||
      (c >= 0x206a && c <= 0x206f) ||
      (c >= 0xfff9 && c <= 0xfffb);
    let loneSurrogate = false;
    let tag = false;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        // A tag character, U+E0000–U+E007F: invisible ASCII look-alikes.
        tag = c === 0xdb40 && next <= 0xdc7f;
        i++;
      } else loneSurrogate = true;
    } else if (c >= 0xdc00 && c <= 0xdfff) loneSurrogate = true;
    if ((control || bidi || invisible || tag || loneSurrogate) && !keep.has(c)) found.push(`U+${c.toString(16).padStart(4, '0')} at ${i}`);
  }
  return found;
}

const NONE = new Set<number>();
const LINE_BREAKS = new Set([0x0a, 0x09]);

describe('sanitize (property)', () => {
  it('leaves no control character, DEL, ESC, bidi control or lone surrogate in single-line output', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        expect(unsafeUnits(sanitize(text), NONE)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps only \\n and \\t in multiline output', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const out = sanitize(text, { multiline: true });
        expect(unsafeUnits(out, LINE_BREAKS)).toEqual([]);
        // Every real line break of the input is still one (a CRLF becomes a LF).
        expect(out.split('\n').length).toBe(text.split('\n').length);
      }),
      { numRuns: 1000 },
    );
  });

  it('is the identity on text that holds nothing unsafe', () => {
    const safeUnit = fc.string({ unit: 'binary', maxLength: 1 }).filter((c) => c.length > 0 && unsafeUnits(c, NONE).length === 0);
    fc.assert(
      fc.property(fc.string({ unit: safeUnit, maxLength: 100 }), (text) => {
        expect(sanitize(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('shows each removed character as a visible escape, never silently dropping it', () => {
    fc.assert(
      fc.property(fc.string({ unit: hostileUnit, maxLength: 50 }), (text) => {
        const out = sanitize(text);
        const escapes = out.match(/\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[ntr])|\ufffd/g) ?? [];
        const originals = unsafeUnits(text, NONE).length;
        // A literal backslash in the input can add look-alikes, never remove escapes.
        expect(escapes.length).toBeGreaterThanOrEqual(originals);
      }),
      { numRuns: 500 },
    );
  });

  it('makes every string of a JSON value safe, object keys included, keeping `__proto__` a field', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), anyString, anyString, (value, key, text) => {
        // Built as text: JSON.parse makes `__proto__` an own field, as it would from a server.
        const input = JSON.parse(
          `{"__proto__":${JSON.stringify({ polluted: text })},"wrap":${JSON.stringify(value)},${JSON.stringify(key)}:${JSON.stringify(text)}}`,
        ) as unknown;
        const out = sanitizeDeep(input) as Record<string, unknown>;
        expect(Object.keys(out)).toContain('__proto__');
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        const walk = (v: unknown): void => {
          if (typeof v === 'string') expect(unsafeUnits(v, NONE)).toEqual([]);
          else if (Array.isArray(v)) v.forEach(walk);
          else if (v !== null && typeof v === 'object') {
            expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
            for (const [k, item] of Object.entries(v)) {
              expect(unsafeUnits(k, NONE)).toEqual([]);
              walk(item);
            }
          }
        };
        walk(out);
      }),
      { numRuns: 300 },
    );
  });
});
