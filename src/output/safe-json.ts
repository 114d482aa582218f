// JSON.stringify leaves DEL, the C1 controls (U+0080–U+009F, where 0x9B is an 8-bit CSI) and
// bidi controls (overrides, isolates and the LRM/RLM/ALM marks) as raw characters; escaping them keeps the JSON identical in meaning and
// keeps a terminal that shows it from interpreting server text.
const UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
