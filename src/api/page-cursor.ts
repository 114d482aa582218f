// The cursor each page of a listing was asked for with, kept beside the page (not in it), so
// that a writer that stops in the middle of an `--all` can name where to resume: `--jq` whose
// program failed on an item (cli.md, Output: the cursor of the first page whose items were not
// all handled). Undefined for a listing's first page asked without --cursor.
const cursors = new WeakMap<readonly unknown[], string | undefined>();

export function notePageCursor(page: readonly unknown[], cursor: string | undefined): void {
  cursors.set(page, cursor);
}

export function pageCursor(page: readonly unknown[]): string | undefined {
  return cursors.get(page);
}
