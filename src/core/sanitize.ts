// Server text (titles, names, transcripts, error titles) must never drive the terminal: an ESC
// or an 8-bit CSI (U+009B) in a title could retitle the window, clear the screen or hide what
// follows, and bidi overrides can make text read differently from what it is ("Trojan Source").
// Characters that show nothing (zero-width spaces and joiners, the BOM, the soft hyphen, tag
// characters) would let two different ids look the same. Every such
// character is shown as an escape, so the user sees it instead of obeying it or missing it.
// The one escaping function for the terminal: messages, prompts, notices, error lines, tables.

export interface SanitizeOptions {
  /** Keep \n and \t as real line breaks and tabs (text blocks); otherwise they are shown escaped. */
  multiline?: boolean;
}

function hex2(code: number): string {
  return `\\x${code.toString(16).padStart(2, '0')}`;
}

function hex4(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Overrides, embeddings and isolates, and the three directional marks (LRM, RLM, ALM), which
 * also reorder what a terminal shows around them. */
function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c;
}

/**
 * Characters that a terminal shows as nothing (or as a blank indistinguishable from a space):
 * the soft hyphen, the combining grapheme joiner, the Hangul fillers, the Mongolian vowel
 * separator, zero-width spaces and joiners, the word joiner and invisible operators, the
 * deprecated format controls, the line and paragraph separators, the BOM (zero-width no-break
 * space) and the interlinear annotation controls. Tag characters (U+E0000–U+E007F) are astral:
 * see `isTagPair`.
 */
function isInvisible(code: number): boolean {
  return (
    code === 0x00ad ||
    code === 0x034f ||
    code === 0x115f ||
    code === 0x1160 ||
    code === 0x17b4 ||
    code === 0x17b5 ||
    code === 0x180e ||
    (code >= 0x200b && code <= 0x200d) ||
    (code >= 0x2028 && code <= 0x2029) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x206a && code <= 0x206f) ||
    code === 0x3164 ||
    code === 0xfeff ||
    code === 0xffa0 ||
    (code >= 0xfff9 && code <= 0xfffb)
  );
}

/** A surrogate pair that encodes a tag character, U+E0000–U+E007F (invisible ASCII look-alikes). */
function isTagPair(high: number, low: number): boolean {
  return high === 0xdb40 && low >= 0xdc00 && low <= 0xdc7f;
}

/**
 * What sanitize shows escaped that JSON.stringify leaves raw (DEL, the C1 controls, the bidi
 * controls, the invisible characters above, and tag characters as their surrogate pairs): the
 * JSON printers (output/safe-json.ts) escape exactly these as \uXXXX, the same characters in
 * JSON's own escape, so every output on a terminal shows them (test/output/sanitize.test.ts
 * checks this list against isBidiControl and isInvisible, code by code).
 */
export const ESCAPED_IN_JSON =
  /\u034f|[\u007f-\u009f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** Text from the server, made safe to print on a terminal. */
export function sanitize(text: string, o: SanitizeOptions = {}): string {
  const multiline = o.multiline === true;
  let out = '';
  let start = 0;
  // Copy safe runs in one slice; only the rare unsafe code unit costs a concatenation.
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let replacement: string | undefined;
    if (code < 0x20) {
      if (code === 0x0a) replacement = multiline ? undefined : '\\n';
      else if (code === 0x09) replacement = multiline ? undefined : '\\t';
      // A CR before a LF is a Windows line end, harmless in a block; a lone CR moves the
      // cursor back over the line, which could hide what was printed before it.
      else if (code === 0x0d) replacement = multiline && text.charCodeAt(i + 1) === 0x0a ? '' : '\\r';
      else replacement = hex2(code);
    } else if (code === 0x7f) {
      replacement = hex2(code);
    } else if (code >= 0x80 && code <= 0x9f) {
      replacement = hex4(code);
    } else if (isBidiControl(code) || isInvisible(code)) {
      replacement = hex4(code);
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (isTagPair(code, next)) {
        out += `${text.slice(start, i)}\\u{${(text.codePointAt(i) as number).toString(16)}}`;
        i++;
        start = i + 1;
        continue;
      }
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++; // a valid pair: keep both halves
        continue;
      }
      replacement = '\ufffd';
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      replacement = '\ufffd';
    }
    if (replacement !== undefined) {
      out += text.slice(start, i) + replacement;
      start = i + 1;
    }
  }
  return start === 0 ? text : out + text.slice(start);
}

/**
 * Whether a text shows on a terminal as it is: sanitize leaves it unchanged. The same rule for
 * anything else that must not carry what a terminal would obey or hide (the inspector's curl
 * command decides by it what goes as base64).
 */
export function showsAsIs(text: string, o: SanitizeOptions = {}): boolean {
  return sanitize(text, o) === text;
}

/**
 * Every string in a value (object keys included: unknown fields come from the server too),
 * sanitised for a table or key/value view. JSON output never goes through this.
 */
export function sanitizeDeep<T>(value: T, o: SanitizeOptions = {}): T {
  return deep(value, o, new WeakSet()) as T;
}

function deep(value: unknown, o: SanitizeOptions, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return sanitize(value, o);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => deep(item, o, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: a server field named __proto__ must stay a field.
      Object.defineProperty(out, sanitize(key, o), { value: deep(item, o, seen), enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
