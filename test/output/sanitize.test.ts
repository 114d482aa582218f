import { describe, expect, test } from 'vitest';
import { sanitize, sanitizeDeep } from '../../src/core/sanitize.js';

describe('sanitize', () => {
  test('leaves ordinary text, accents and emoji alone', () => {
    expect(sanitize('Réunion Q3 — 日本語 😀')).toBe('Réunion Q3 — 日本語 😀');
  });

  test('shows an OSC title change and a screen clear as text instead of sending them', () => {
    expect(sanitize('a\x1b]0;pwned\x07b\x1b[2Jc')).toBe('a\\x1b]0;pwned\\x07b\\x1b[2Jc');
  });

  test('shows the 8-bit CSI and other C1 controls and DEL escaped', () => {
    expect(sanitize('\u009b31mred\u0085\u007f')).toBe('\\u009b31mred\\u0085\\x7f');
  });

  test('shows bidi overrides and isolates escaped', () => {
    expect(sanitize('abc\u202edcba\u2066x\u2069\u202a')).toBe('abc\\u202edcba\\u2066x\\u2069\\u202a');
    // The directional marks reorder neutral characters around them too.
    expect(sanitize('a\u200eb\u200fc\u061cd')).toBe('a\\u200eb\\u200fc\\u061cd');
  });

  test('shows newlines, tabs and carriage returns escaped on one line', () => {
    expect(sanitize('one\ntwo\tthree\rfour')).toBe('one\\ntwo\\tthree\\rfour');
  });

  test('keeps newlines and tabs in multiline mode, drops the CR of CRLF, escapes a lone CR', () => {
    expect(sanitize('one\r\ntwo\tx\rhidden\x1b[1A', { multiline: true })).toBe('one\ntwo\tx\\rhidden\\x1b[1A');
  });

  test('replaces lone surrogates and keeps valid pairs', () => {
    expect(sanitize('a\ud800b\udc00c😀')).toBe('a\ufffdb\ufffdc😀');
    expect(sanitize('end\ud83d')).toBe('end\ufffd');
  });

  test('shows zero-width and invisible characters escaped, so that two ids cannot look the same', () => {
    expect(sanitize('wh_a\u200bb')).toBe('wh_a\\u200bb');
    expect(sanitize('wh_a\u200bb')).not.toBe(sanitize('wh_ab'));
    expect(sanitize('\ufeffx\u00ady\u200cz\u200d\u2060\u2028\u2029\u180e\u3164\u034f')).toBe(
      '\\ufeffx\\u00ady\\u200cz\\u200d\\u2060\\u2028\\u2029\\u180e\\u3164\\u034f',
    );
    // Tag characters (U+E0000–U+E007F) are invisible look-alikes of ASCII, one code point each.
    expect(sanitize('id\u{e0041}\u{e007f}.')).toBe('id\\u{e0041}\\u{e007f}.');
    // Other astral characters (emoji) stay as they are.
    expect(sanitize('ok 😀 \u{1f3f4}')).toBe('ok 😀 \u{1f3f4}');
    // In multiline text too: the line and paragraph separators are not line breaks for a terminal.
    expect(sanitize('a\u2028b\n', { multiline: true })).toBe('a\\u2028b\n');
  });

  test('escapes NUL and every other C0 control', () => {
    expect(sanitize('\x00\x01\x1f')).toBe('\\x00\\x01\\x1f');
  });
});

describe('sanitizeDeep', () => {
  test('sanitises every string, object keys included, and keeps other values', () => {
    const value = { title: 'x\x1b[2J', n: 3, ok: true, none: null, list: ['\u202e', { 'k\x07': 'v\u009b' }] };
    expect(sanitizeDeep(value)).toEqual({ title: 'x\\x1b[2J', n: 3, ok: true, none: null, list: ['\\u202e', { 'k\\x07': 'v\\u009b' }] });
  });

  test('keeps a server field named __proto__ as a plain field', () => {
    const value = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    const out = sanitizeDeep(value);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
