// Numbers as the server wrote them (cli.md, Output: `--jq` prints numbers as jq does, and jq 1.8
// keeps a number's literal: `3.0`, `1.10`, integers beyond 2^53). JSON.parse turns `3.0` into 3
// and `9007199254740993` into …992, so the literals that a JavaScript number does not write back
// the same are noted here when an answer is parsed (api/contract.ts), against the object and key
// that hold them, and written back by rfs's JSON writer (output/safe-json.ts): json, ndjson and
// so --jq print the server's numbers. Answers whose numbers all round-trip (the usual case) cost
// one regular-expression test.

/** Where a number that does not round-trip sits in an answer, and its text. */
export interface NumberLiteral {
  path: (string | number)[];
  literal: string;
}

/**
 * A number token that could differ from its JavaScript number, at the start of the token (after
 * `:`, `,` or `[` and blanks): a trailing 0 after a point, an exponent, 16 digits in a row, 16
 * characters of digits and a point (as many significant digits as a double holds), or -0. Matched
 * anywhere, not at a token's start, a long answer's text nearly always had a candidate inside
 * some string (an id's `4e7`), and the walk of every token that followed cost a page 1.5 ms on
 * Node 20 and 7 ms on Node 26 (bench/README.md, How rfs starts).
 */
const MAYBE = /(?<=[:,[]\s*)(?:-?[\d.]*(?:\d\.\d*0(?=[\s,\]}])|\d[eE][+-]?\d|\d{16})|-?\d[\d.]{15,}|-0(?=[\s,\]}]))/;

/**
 * A JSON text's strings and numbers, strings first so that a digit inside one is never taken for
 * a number; the string pattern is the unrolled loop, linear without backtracking per character.
 */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d[\d.eE+-]*/g;

/**
 * Whether a number outside the strings of `text` is one JSON.parse + JSON.stringify would not
 * give back. The native regular expression skips strings (most of an answer: titles, notes,
 * transcripts) far faster than the walk below, which runs only when this finds one.
 */
function anyLossyNumber(text: string): boolean {
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m !== null; m = TOKENS.exec(text)) {
    const token = m[0];
    if (token.charCodeAt(0) !== 0x22 && JSON.stringify(Number(token)) !== token) return true;
  }
  return false;
}

/** The number literals of a JSON text that JSON.parse + JSON.stringify would not give back. */
export function lossyNumbers(text: string): NumberLiteral[] {
  if (!MAYBE.test(text) || !anyLossyNumber(text)) return [];
  const found: NumberLiteral[] = [];
  const path: (string | number)[] = [];
  // Per open container: an array's next index, or an object (whose key is set before its value).
  const open: ('object' | number)[] = [];
  let key: string | undefined;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: a key if an object waits for one (the next non-blank character is ':').
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) j += 2;
        else if (d === 0x22) break;
        else j++;
      }
      let k = j + 1;
      while (k < n && isBlank(text.charCodeAt(k))) k++;
      if (text[k] === ':') key = JSON.parse(text.slice(i, j + 1)) as string;
      else advance();
      i = j + 1;
    } else if (c === 0x7b || c === 0x5b) {
      enter();
      open.push(c === 0x7b ? 'object' : 0);
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      path.pop();
      advance();
      i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && isNumberPart(text.charCodeAt(j))) j++;
      const literal = text.slice(i, j);
      const at = [...path, current()];
      if (JSON.stringify(Number(literal)) !== literal) found.push({ path: at, literal });
      advance();
      i = j;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      // true, false, null
      i += c === 0x66 ? 5 : 4;
      advance();
    } else i++;
  }
  return found;

  /** The key or index of the value about to be read. */
  function current(): string | number {
    const top = open[open.length - 1];
    return top === 'object' ? (key as string) : (top ?? 0);
  }
  function enter(): void {
    if (open.length > 0) path.push(current());
    else path.push('');
  }
  function advance(): void {
    const top = open.length - 1;
    const last = open[top];
    if (typeof last === 'number') open[top] = last + 1;
  }
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A digit, a point, an exponent or its sign. */
function isNumberPart(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/** object → key → literal, for the numbers rfs writes back as the server wrote them. */
const kept = new WeakMap<object, Map<string, string>>();
let keptAny = false;

/** Notes `literals` (found in the text `root` was parsed from) against the objects of `root`. */
export function keepNumberLiterals(root: unknown, literals: readonly NumberLiteral[]): void {
  for (const { path, literal } of literals) {
    // The first step is the root itself ('').
    let holder: unknown = root;
    const steps = path.slice(1);
    const last = steps.pop();
    if (last === undefined) continue;
    for (const step of steps)
      holder = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[step] : undefined;
    if (typeof holder !== 'object' || holder === null) continue;
    if (typeof (holder as Record<string, unknown>)[last] !== 'number') continue;
    let keys = kept.get(holder);
    if (keys === undefined) {
      keys = new Map();
      kept.set(holder, keys);
    }
    keys.set(String(last), literal);
    keptAny = true;
  }
}

/** The server's literal of `holder[key]`, if it was one that JavaScript writes differently. */
export function numberLiteral(holder: object, key: string): string | undefined {
  return keptAny ? kept.get(holder)?.get(key) : undefined;
}

/** Whether any literal was kept in this run (the JSON writer's fast path when none was). */
export function anyNumberLiteral(): boolean {
  return keptAny;
}
