// The bytes the listener's inspector holds (cli.md, webhooks listen --inspect: Bounds): every
// body and answer it keeps, counted as the history writes them (one JSON line per delivery, its
// bodies as base64). The bodies themselves are kept as Buffers, outside V8's heap: the heap
// then holds only the small parts, and V8, which lets its heap grow to a few times what it
// held after its last full collection, does not grow it to hundreds of MB for 40 MiB of bodies
// (docs/inspector.md, Bounds; bench/RESULTS.md). Past
// MAX_KEPT_BYTES the oldest go first, each leaving a mark that says so: the bodies of the oldest
// exchanges (answers, edited bodies sent), then the oldest exchanges themselves, then the oldest
// deliveries' bodies, then the oldest deliveries. The bound sits below what the history file
// keeps when it is written anew (history.ts), so that a restart lists what was listed.

/** What the inspector keeps in all: 40 MiB (docs/inspector.md, Bounds). */
export const MAX_KEPT_BYTES = 40 * 1024 * 1024;
/** Trimmed down to this share of the bound, so that a trim is not made on every replay. */
const LOW_WATER = 0.9;

/** An exchange as kept: its bodies, and the mark of a trim. */
export interface KeptExchange {
  at: string;
  body: Buffer;
  requestBody?: Buffer;
  /** Its bodies were dropped to keep the inspector within MAX_KEPT_BYTES. */
  dropped?: true;
}

export interface KeptEntry<E extends KeptExchange> {
  id: string;
  body: Buffer;
  bodyBytes?: number;
  /** The body was dropped to keep within MAX_KEPT_BYTES (`bodyBytes` says its size). */
  bodyDropped?: true;
  /** How many of its oldest exchanges were dropped to keep within MAX_KEPT_BYTES. */
  exchangesDropped?: number;
  exchanges: E[];
}

const measured = new WeakMap<object, number>();

/** A body's length as base64 text. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/** No body: one shared empty Buffer. */
export const NO_BODY: Buffer = Buffer.alloc(0);

/**
 * A value's size as its JSON line holds it (bodies as `bodyBase64`, `requestBodyBase64`),
 * measured once per object (a trim replaces what it changes). Its bodies are counted by their
 * base64 length: base64 needs no escape in JSON, a byte a character.
 */
function jsonBytes(value: object, rest: object, body: Buffer, sent: Buffer | undefined): number {
  let size = measured.get(value);
  if (size === undefined) {
    const shape = sent === undefined ? { ...rest, bodyBase64: '' } : { ...rest, bodyBase64: '', requestBodyBase64: '' };
    size = Buffer.byteLength(JSON.stringify(shape)) + base64Length(body.length) + (sent === undefined ? 0 : base64Length(sent.length));
    measured.set(value, size);
  }
  return size;
}

/** A delivery's bytes as its history line holds them: its own part (measured once), and each exchange's. */
export function entryBytes<E extends KeptExchange>(entry: KeptEntry<E>): number {
  // The entry without its exchanges is measured as the object it is; `exchanges` alone changes (a replay).
  // Its line: the entry with `"exchanges":[]`, the exchanges between those brackets with a comma
  // between each two, and the line's end.
  const { body, ...rest } = entry;
  let bytes = jsonBytes(entry, { ...rest, exchanges: [] }, body, undefined) + Math.max(0, entry.exchanges.length - 1) + 1;
  for (const e of entry.exchanges) {
    const { body: answer, requestBody, ...fields } = e;
    bytes += jsonBytes(e, fields, answer, requestBody);
  }
  return bytes;
}

/** The exchanges that `take` picks, oldest first (by when they were made, then in order of arrival). */
function byAge<E extends KeptExchange, T extends KeptEntry<E>>(entries: readonly T[], take: (e: E) => boolean): { entry: T; e: E }[] {
  const found: { entry: T; e: E; order: number }[] = [];
  let order = 0;
  for (const entry of entries) for (const e of entry.exchanges) if (take(e)) found.push({ entry, e, order: order++ });
  return found.sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.order - b.order));
}

/** What a trim did: the deliveries it changed (to write again) and those it dropped whole. */
export interface Trim<T> {
  changed: Set<T>;
  removed: T[];
}

/**
 * Brings `entries` (oldest first; changed in place, an entry's parts replaced by new objects)
 * within `limit` bytes when they pass it, down to LOW_WATER of it, the oldest first. `total` is
 * their entryBytes sum; the sum after is returned with what changed.
 */
export function trimToBudget<E extends KeptExchange, T extends KeptEntry<E>>(
  entries: readonly T[],
  bytesBefore: number,
  limit: number,
): Trim<T> & { total: number } {
  let total = bytesBefore;
  const changed = new Set<T>();
  const removed: T[] = [];
  if (total <= limit) return { changed, removed, total };
  const target = limit * LOW_WATER;
  const bytes = new Map<T, number>(entries.map((entry) => [entry, entryBytes(entry)]));
  const remeasure = (entry: T): void => {
    const before = bytes.get(entry) ?? 0;
    measured.delete(entry);
    const after = entryBytes(entry);
    bytes.set(entry, after);
    total += after - before;
    changed.add(entry);
  };

  // 1. The bodies of the oldest exchanges, across deliveries, by when they were made.
  for (const { entry, e } of byAge(entries, (e) => e.body.length > 0 || e.requestBody !== undefined)) {
    if (total <= target) break;
    const { requestBody: _sent, ...rest } = e;
    entry.exchanges = entry.exchanges.map((x) => (x === e ? ({ ...rest, body: NO_BODY, dropped: true } as E) : x));
    remeasure(entry);
  }
  // 2. The oldest exchanges themselves, counted on their delivery.
  if (total > target) {
    for (const { entry, e } of byAge(entries, () => true)) {
      if (total <= target) break;
      entry.exchanges = entry.exchanges.filter((x) => x !== e);
      entry.exchangesDropped = (entry.exchangesDropped ?? 0) + 1;
      remeasure(entry);
    }
  }
  // 3. The oldest deliveries' bodies (a delivery without its body is no longer replayed).
  for (const entry of entries) {
    if (total <= target) break;
    if (entry.body.length === 0) continue;
    entry.bodyBytes = entry.bodyBytes ?? entry.body.length;
    entry.body = NO_BODY;
    entry.bodyDropped = true;
    remeasure(entry);
  }
  // 4. The oldest deliveries, but the newest one.
  for (const entry of entries.slice(0, -1)) {
    if (total <= target) break;
    total -= bytes.get(entry) ?? 0;
    removed.push(entry);
    changed.delete(entry);
  }
  return { changed, removed, total };
}
