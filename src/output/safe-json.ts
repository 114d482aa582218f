import { anyNumberLiteral, numberLiteral } from '../core/number-literals.js';
import { ESCAPED_IN_JSON } from '../core/sanitize.js';

// JSON.stringify leaves DEL, the C1 controls (U+0080–U+009F, where 0x9B is an 8-bit CSI), bidi
// controls (overrides, isolates and the LRM/RLM/ALM marks) and the characters a terminal shows
// as nothing (zero-width spaces, the BOM, the soft hyphen, tag characters) as raw characters.
// Escaping them (core/sanitize.ts, ESCAPED_IN_JSON: the characters sanitize escapes) keeps the
// JSON identical in meaning, and keeps a terminal that shows it from interpreting server text or
// hiding it: JSON, ndjson and `rfs api` are escaped as the tables are.
const hex4 = (unit: number): string => `\\u${unit.toString(16).padStart(4, '0')}`;

export function safeJson(value: unknown, indent?: number): string {
  const text = anyNumberLiteral() ? withLiterals(value, indent) : JSON.stringify(value, null, indent);
  return text.replace(ESCAPED_IN_JSON, (c) => (c.length === 2 ? hex4(c.charCodeAt(0)) + hex4(c.charCodeAt(1)) : hex4(c.charCodeAt(0))));
}

/** Marks a number written as the server wrote it; no text of the server's JSON can contain it. */
const MARK = `\u0000rfs-number-${Math.random().toString(36).slice(2)}\u0000`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replace(/\\/g, '\\\\')}([-+.0-9eE]+)"`, 'g');

/** JSON with the numbers whose literal the server chose kept as it wrote them (core/number-literals.ts). */
function withLiterals(value: unknown, indent?: number): string {
  const text = JSON.stringify(
    value,
    function (this: object, key: string, v: unknown) {
      if (typeof v !== 'number') return v;
      const literal = numberLiteral(this, key);
      return literal === undefined ? v : `${MARK}${literal}`;
    },
    indent,
  );
  return text.replace(MARKED, '$1');
}
