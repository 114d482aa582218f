// How rfs lists things in a sentence, in one place for every message.

/** `A`, `A and B`, `A, B and C`. */
export function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
