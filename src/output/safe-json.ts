import { anyNumberLiteral, numberLiteral } from '../core/number-literals.js';

// JSON.stringify leaves DEL, the C1 controls (U+0080–U+009F, where 0x9B is an 8-bit CSI) and
// bidi controls (overrides, isolates and the LRM/RLM/ALM marks) as raw characters; escaping them keeps the JSON identical in meaning and
// keeps a terminal that shows it from interpreting server text.
const UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function safeJson(value: unknown, indent?: number): string {
  const text = anyNumberLiteral() ? withLiterals(value, indent) : JSON.stringify(value, null, indent);
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
