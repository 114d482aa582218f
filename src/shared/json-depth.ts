// How deeply nested a JSON value may be, for the CLI and the sandbox alike: api.md's shapes are a
// few levels deep and a rich-text contentJson a few dozen. Loose objects keep unknown fields, so
// without a limit a 1 MiB body or a 16 MiB answer could carry a million levels, and everything
// that walks a value recursively (JSON.stringify, the sanitiser, a printer) overflows the stack.

/** The most levels of arrays and objects a body or an answer may nest. */
export const MAX_JSON_DEPTH = 256;

/**
 * A filing's metadata comes back three levels down in the filing's answer
 * (`{"data":{"syncMetadata":{"metadata":…}}}`), the deepest answer that carries it. Metadata
 * may nest only so deep that this answer stays within MAX_JSON_DEPTH: what rfs sends, and what
 * the sandbox stores, must come back readable (metadata of 254–255 levels was stored,
 * and every rfs that read the answer exited 7).
 */
export const MAX_METADATA_DEPTH = MAX_JSON_DEPTH - 3;

/** Whether a filing's metadata nests deeper than MAX_METADATA_DEPTH. */
export function metadataTooDeep(metadata: unknown): boolean {
  return nestedDeeperThan(metadata, MAX_METADATA_DEPTH);
}

/** Whether the brackets of JSON text (outside strings) nest deeper than `max`. */
export function bytesNestDeeperThan(bytes: Uint8Array, max: number): boolean {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  // Text with at most `max` opening brackets, in strings or not, cannot nest deeper: counted with
  // a native search per bracket, where the walk below takes a step per byte outside strings. A
  // page of a list has a few hundred brackets in tens of kilobytes, and is answered here: the
  // walk, cold, took 5 % of one page's start-up (bench/RESULTS.md, Start-up).
  let opening = 0;
  for (const bracket of [0x7b, 0x5b]) {
    for (let at = buffer.indexOf(bracket); at !== -1 && opening <= max; at = buffer.indexOf(bracket, at + 1)) opening++;
  }
  if (opening <= max) return false;
  let depth = 0;
  for (let i = 0; i < buffer.length; i++) {
    const b = buffer[i];
    if (b === 0x22) {
      // Jump over the whole string with a native search for its closing quote (one not
      // preceded by an odd number of backslashes): most of an answer's bytes are in strings.
      let end = i;
      for (;;) {
        end = buffer.indexOf(0x22, end + 1);
        if (end === -1) return false; // unterminated: JSON.parse says so
        let slashes = 0;
        while (buffer[end - 1 - slashes] === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (b === 0x7b || b === 0x5b) {
      if (++depth > max) return true;
    } else if (b === 0x7d || b === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Whether arrays and objects in `value` nest deeper than `max`; a loop, so it cannot overflow. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
